import type { PairingStartRequest } from '../../../shared/protocol';
import type { PairingState } from '../../../shared/runner';
import type { PairingClaimResponse } from '../../../shared/protocol';
import type { RunnerConnector } from '../connectors/connector';
import { ConnectorError } from '../connectors/errors';
import type { Clock, Logger, TimerHandle } from '../ports';
import { backoffDelay } from './backoff';

/** RFC 8628 §3.5: slow_down adds 5 s to the interval for the rest of the flow. */
const SLOW_DOWN_STEP_S = 5;
const TROUBLE_BACKOFF_CAP_MS = 60_000;

export interface PairingFlowDeps {
  connector: RunnerConnector;
  clock: Clock;
  log: Logger;
  onState(state: PairingState): void;
  /** Stores the credentials; a thrown error fails the flow with its message. */
  onApproved(credentials: PairingClaimResponse): Promise<{ runnerName: string }>;
  random?: () => number;
}

/**
 * One device-code pairing, start to end: show the code, poll the claim at the server's
 * interval, slow down when told, back off on network trouble, and stop on approval,
 * denial, expiry or cancel. Every await is followed by a check that the flow is still
 * the current one, so a cancel wins over a poll in flight.
 */
export class PairingFlow {
  private state: PairingState = { phase: 'starting' };
  private timer: TimerHandle | null = null;
  private active = false;
  private generation = 0;
  private pairingId = '';
  private intervalS = 5;
  private expiresAt = 0;
  private troubleAttempts = 0;

  constructor(private readonly deps: PairingFlowDeps) {}

  get current(): PairingState {
    return this.state;
  }

  get running(): boolean {
    return this.active;
  }

  async start(request: PairingStartRequest): Promise<void> {
    this.cancelTimer();
    const generation = ++this.generation;
    this.active = true;
    this.troubleAttempts = 0;
    this.set({ phase: 'starting' });
    try {
      const started = await this.deps.connector.startPairing(request);
      if (generation !== this.generation) return;
      this.pairingId = started.pairing_id;
      this.intervalS = Math.max(started.interval, 1);
      this.expiresAt = this.deps.clock.now() + started.expires_in * 1000;
      this.set({
        phase: 'waiting',
        userCode: started.user_code,
        verificationUri: started.verification_uri,
        verificationUriComplete: started.verification_uri_complete ?? null,
        expiresAt: new Date(this.expiresAt).toISOString(),
        intervalSeconds: this.intervalS,
        trouble: null,
      });
      this.deps.log.info('pairing started: waiting for approval', { verificationUri: started.verification_uri, expiresIn: started.expires_in });
      this.schedule(this.intervalS * 1000, generation);
    } catch (error) {
      if (generation !== this.generation) return;
      this.finish({ phase: 'failed', message: `Could not start pairing: ${describe(error)}` });
    }
  }

  cancel(): void {
    if (!this.active) return;
    this.generation++;
    this.finish({ phase: 'canceled' });
    this.deps.log.info('pairing canceled');
  }

  private schedule(delayMs: number, generation: number): void {
    this.cancelTimer();
    this.timer = this.deps.clock.setTimeout(() => void this.poll(generation), delayMs);
  }

  private async poll(generation: number): Promise<void> {
    this.timer = null;
    if (generation !== this.generation) return;
    if (this.deps.clock.now() >= this.expiresAt) return this.finish({ phase: 'expired' });
    try {
      const outcome = await this.deps.connector.pollPairing(this.pairingId);
      if (generation !== this.generation) return;
      this.troubleAttempts = 0;
      this.clearTrouble();
      switch (outcome.kind) {
        case 'pending':
          return this.schedule(this.intervalS * 1000, generation);
        case 'slow_down':
          this.intervalS = Math.max(this.intervalS + SLOW_DOWN_STEP_S, outcome.intervalSeconds ?? 0);
          this.deps.log.info('pairing: the control plane asked us to slow down', { intervalSeconds: this.intervalS });
          this.patchWaiting({ intervalSeconds: this.intervalS });
          return this.schedule(this.intervalS * 1000, generation);
        case 'denied':
          this.deps.log.warn('pairing was denied on the control plane');
          return this.finish({ phase: 'denied' });
        case 'expired':
          return this.finish({ phase: 'expired' });
        case 'approved': {
          const { runnerName } = await this.deps.onApproved(outcome.credentials);
          if (generation !== this.generation) return;
          this.deps.log.info('pairing approved', { runnerId: outcome.credentials.runner_id });
          return this.finish({ phase: 'approved', runnerName });
        }
      }
    } catch (error) {
      if (generation !== this.generation) return;
      if (error instanceof ConnectorError && error.retryable) {
        // RFC 8628 §3.5: back off on connection trouble, but never poll faster than the interval.
        const interval = this.intervalS * 1000;
        const delay = Math.max(interval, backoffDelay(this.troubleAttempts++, { baseMs: interval, capMs: TROUBLE_BACKOFF_CAP_MS }, this.deps.random));
        const retryAt = new Date(this.deps.clock.now() + delay).toISOString();
        this.patchWaiting({ trouble: { message: `Cannot reach the control plane (${error.message}).`, retryAt } });
        this.deps.log.warn('pairing poll failed; retrying', { error: error.message, retryInMs: delay });
        return this.schedule(delay, generation);
      }
      this.finish({ phase: 'failed', message: describe(error) });
    }
  }

  private clearTrouble(): void {
    if (this.state.phase === 'waiting' && this.state.trouble) this.patchWaiting({ trouble: null });
  }

  private patchWaiting(patch: Partial<Extract<PairingState, { phase: 'waiting' }>>): void {
    if (this.state.phase === 'waiting') this.set({ ...this.state, ...patch });
  }

  private finish(state: PairingState): void {
    this.cancelTimer();
    this.active = false;
    this.set(state);
  }

  private set(state: PairingState): void {
    this.state = state;
    this.deps.onState(state);
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
