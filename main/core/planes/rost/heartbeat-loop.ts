import type { HeartbeatRequest, HeartbeatResponse } from '../../../../shared/protocol';
import type { RunnerConnector, RunnerCredentials } from './connector';
import type { ControlPlaneFault } from '../../../../shared/status';
import { faultOf, isConnectorError } from '../../connectors/errors';
import type { Clock, Logger, TimerHandle } from '../../base/ports';
import { backoffDelay, jittered } from '../../base/backoff';
import { errorText } from '../../../../shared/errors';

/** The server may stretch or shorten our beat, but only within these bounds. */
export const HINT_MIN_MS = 1_000;
export const HINT_MAX_MS = 5 * 60_000;
const FAILURE_BACKOFF_BASE_MS = 2_000;
const FAILURE_BACKOFF_CAP_MS = 5 * 60_000;
const JITTER = 0.1;

export interface HeartbeatLoopDeps {
  connector: RunnerConnector;
  clock: Clock;
  log: Logger;
  random?: () => number;
  credentials(): RunnerCredentials | null;
  body(): Promise<HeartbeatRequest>;
  heartbeatMs(): number;
  onSuccess(response: HeartbeatResponse, nextAt: number): void;
  onFailure(failure: { message: string; retryAt: number; consecutiveFailures: number; fault: ControlPlaneFault }): void;
  /** A 401: the secret was revoked. The loop stops itself. */
  onRevoked(): void;
}

/**
 * The runner's pulse: a setTimeout chain (never setInterval) with jitter, the server's
 * hint honoured within bounds, capped exponential backoff on failure, and a stop that
 * wins over any beat in flight.
 */
export class HeartbeatLoop {
  private timer: TimerHandle | null = null;
  private generation = 0;
  private running = false;
  private failures = 0;
  private inFlight: Promise<void> | null = null;
  /** Long-poll claims carrying the heartbeat under way [v1]: no beat of its own is timed while one is held. */
  private holds = 0;
  private dueAt = 0;

  constructor(private readonly deps: HeartbeatLoopDeps) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.failures = 0;
    this.holds = 0;
    const generation = ++this.generation;
    this.schedule(0, generation);
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.generation++;
    this.holds = 0;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** Beat now (settings changed, pause toggled, a runtime was installed). */
  beatNow(): void {
    if (!this.running || this.inFlight) return;
    this.schedule(0, this.generation);
  }

  /** A claim carrying the heartbeat is held now: no beat of its own is timed. [v1] */
  get held(): boolean {
    return this.holds > 0;
  }

  /** A claim carrying the heartbeat is under way: it is the beat, so none is timed until it is answered. [v1] */
  hold(): void {
    if (!this.running) return;
    this.holds++;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /** The carrying claim ended: its heartbeat's answer counts as a good beat; without one the cadence resumes where it was. */
  release(answer: HeartbeatResponse | null): void {
    if (!this.running || this.holds === 0) return;
    this.holds--;
    if (answer) {
      this.failures = 0;
      const delay = jittered(this.nextDelay(answer.next_heartbeat_ms), JITTER, this.deps.random);
      this.deps.onSuccess(answer, this.deps.clock.now() + delay);
      this.schedule(delay, this.generation);
    } else if (this.holds === 0 && !this.inFlight) {
      this.schedule(Math.max(0, this.dueAt - this.deps.clock.now()), this.generation);
    }
  }

  private schedule(delayMs: number, generation: number): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    this.dueAt = this.deps.clock.now() + delayMs;
    // While a carrying claim is held only a beat asked for now (beatNow) goes out.
    if (this.holds > 0 && delayMs > 0) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      this.inFlight = this.beat(generation).finally(() => (this.inFlight = null));
    }, delayMs);
  }

  private async beat(generation: number): Promise<void> {
    const credentials = this.deps.credentials();
    if (!credentials) return this.stop();
    try {
      const body = await this.deps.body();
      if (generation !== this.generation) return;
      const response = await this.deps.connector.heartbeat(credentials, body);
      if (generation !== this.generation) return;
      this.failures = 0;
      const delay = jittered(this.nextDelay(response.next_heartbeat_ms), JITTER, this.deps.random);
      const nextAt = this.deps.clock.now() + delay;
      this.deps.onSuccess(response, nextAt);
      this.schedule(delay, generation);
    } catch (error) {
      if (generation !== this.generation) return;
      if (isConnectorError(error, 'unauthorized')) {
        this.stop();
        this.deps.onRevoked();
        return;
      }
      this.failures++;
      const cap = Math.min(FAILURE_BACKOFF_CAP_MS, Math.max(this.deps.heartbeatMs(), FAILURE_BACKOFF_BASE_MS));
      const delay = backoffDelay(this.failures - 1, { baseMs: FAILURE_BACKOFF_BASE_MS, capMs: cap }, this.deps.random);
      const message = errorText(error);
      const retryAt = this.deps.clock.now() + delay;
      this.deps.log.warn('heartbeat failed', { error: message, consecutiveFailures: this.failures, retryInMs: delay });
      this.deps.onFailure({ message, retryAt, consecutiveFailures: this.failures, fault: faultOf(error) });
      this.schedule(delay, generation);
    }
  }

  private nextDelay(hint: number | undefined): number {
    const base = this.deps.heartbeatMs();
    if (hint === undefined) return base;
    return Math.min(HINT_MAX_MS, Math.max(HINT_MIN_MS, hint));
  }
}
