import type { HeartbeatRequest, HeartbeatResponse } from '../../../../shared/protocol';
import type { RunnerSnapshot } from '../../../../shared/runner';
import type { ControlPlaneFault } from '../../../../shared/status';
import type { ClaimOptions, RunnerConnector, RunnerCredentials } from './connector';
import type { Clock, Logger } from '../../base/ports';
import { HeartbeatLoop } from './heartbeat-loop';
import { iso } from '../../runner/pause-state';
import { faultReason } from '../../connectors/errors';

type CarriedHeartbeat = NonNullable<ClaimOptions['heartbeat']>;

export interface HeartbeatTrackerDeps {
  clock: Clock;
  log: Logger;
  random?: () => number;
  heartbeatMs(): number;
  credentials(): RunnerCredentials | null;
  body(): Promise<HeartbeatRequest>;
  onRevoked(): void;
  /** After every beat, good or failed. */
  onChange(): void;
  /** After each good beat (the seed claims right after one; the outbox resumes). */
  onBeat(): void;
}

/** A profile's heartbeat and what the last beats said: connected, offline (why, until when), the long-poll offer. */
export class HeartbeatTracker {
  private loop: HeartbeatLoop | null = null;
  private lastOkAt: number | null = null;
  private nextAt: number | null = null;
  private failures = 0;
  private longPollMaxMs: number | null = null;
  private carries = false;
  private notices = false;
  offline: { retryAt: number; message: string; fault?: ControlPlaneFault } | null = null;

  constructor(private readonly deps: HeartbeatTrackerDeps) {}

  get connected(): boolean {
    return this.lastOkAt !== null;
  }
  /** The server's long-poll limit from the last beat, or null (then claims keep the seed's cadence). */
  get longPoll(): number | null {
    return this.longPollMaxMs;
  }
  /** The last beat said a held claim may ask for cancel notices [v1]. */
  get cancelNotices(): boolean {
    return this.notices;
  }
  /** The last beat said a long-poll claim may carry the heartbeat [v1]. */
  get carriesHeartbeat(): boolean {
    return this.carries;
  }

  /**
   * Runs a long-poll claim that carries the heartbeat [v1]: the loop times no beat of its own
   * while it is held, and the claim's heartbeat answer counts as a good beat.
   */
  async carrying<T>(claim: (heartbeat: CarriedHeartbeat) => Promise<T>): Promise<T> {
    const body = await this.deps.body();
    const loop = this.loop;
    loop?.hold();
    // The snapshot says so at once: no next beat is timed while the claim is held.
    if (loop) this.deps.onChange();
    let answer: HeartbeatResponse | null = null;
    try {
      return await claim({ body, answered: (response) => (answer = response) });
    } finally {
      if (loop && this.loop === loop) {
        loop.release(answer);
        // An answer is a good beat (onSuccess said so); without one, the cadence resumes and is shown again.
        if (!answer) this.deps.onChange();
      }
    }
  }

  start(connector: RunnerConnector): void {
    this.stop();
    this.loop = new HeartbeatLoop({
      connector,
      clock: this.deps.clock,
      log: this.deps.log,
      ...(this.deps.random ? { random: this.deps.random } : {}),
      credentials: () => this.deps.credentials(),
      heartbeatMs: () => this.deps.heartbeatMs(),
      body: () => this.deps.body(),
      onSuccess: (response, nextAt) => {
        this.lastOkAt = this.deps.clock.now();
        this.nextAt = nextAt;
        this.failures = 0;
        this.offline = null;
        this.longPollMaxMs = response.claim?.long_poll_max_ms || null;
        this.carries = this.longPollMaxMs !== null && response.claim?.carries_heartbeat === true;
        this.notices = this.longPollMaxMs !== null && response.claim?.cancel_notices === true;
        this.deps.onChange();
        this.deps.onBeat();
      },
      onFailure: ({ message, retryAt, consecutiveFailures, fault }) => {
        this.failures = consecutiveFailures;
        this.nextAt = retryAt;
        this.offline = { retryAt, fault, message: faultReason(fault, message) };
        this.deps.onChange();
      },
      onRevoked: () => this.deps.onRevoked(),
    });
    this.loop.start();
  }

  /** Stops beating and forgets what the beats said. */
  stop(): void {
    this.loop?.stop();
    this.loop = null;
    this.offline = null;
    this.lastOkAt = this.nextAt = null;
    this.failures = 0;
    this.longPollMaxMs = null;
    this.carries = false;
    this.notices = false;
  }

  beatNow(): void {
    this.loop?.beatNow();
  }

  view(): RunnerSnapshot['heartbeat'] {
    // While a claim carries the heartbeat no beat of its own goes out: there is no next one to name.
    const onClaim = this.loop?.held ?? false;
    return {
      lastOkAt: iso(this.lastOkAt),
      nextAt: onClaim ? null : iso(this.nextAt),
      onClaim,
      consecutiveFailures: this.failures,
      longPoll: this.longPollMaxMs !== null,
      intervalMs: this.deps.heartbeatMs(),
    };
  }
}
