import type { DeviceCodeWaiting } from '../../../shared/device-code';
import { ConnectorError } from '../connectors/errors';
import type { Clock, Logger, TimerHandle } from '../base/ports';
import { backoffDelay } from '../base/backoff';
import { errorText } from '../../../shared/errors';

/** RFC 8628 §3.5: slow_down adds 5 s to the interval for the rest of the flow. */
const SLOW_DOWN_STEP_S = 5;
const TROUBLE_BACKOFF_CAP_MS = 60_000;

export interface DeviceCodeStart {
  /** What the poll sends back: a pairing id or an OAuth device code (a credential: never logged). */
  handle: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string | null;
  expiresInS: number;
  intervalS: number;
}

export type DeviceCodePoll<T> =
  { kind: 'pending' } | { kind: 'slow_down'; intervalSeconds?: number } | { kind: 'denied' } | { kind: 'expired' } | { kind: 'granted'; value: T };

export type DeviceCodeState<A extends object> =
  | { phase: 'starting' }
  | DeviceCodeWaiting
  | ({ phase: 'approved' } & A)
  | { phase: 'denied' }
  | { phase: 'expired' }
  | { phase: 'canceled' }
  | { phase: 'failed'; message: string };

export interface DeviceCodeFlowDeps<T, A extends object> {
  /** For log lines and messages: "pairing", "operator sign-in". */
  what: string;
  begin(): Promise<DeviceCodeStart>;
  poll(handle: string): Promise<DeviceCodePoll<T>>;
  /** Keeps what was granted; its answer completes the approved state, a throw fails the flow. */
  onGranted(value: T): Promise<A>;
  onState(state: DeviceCodeState<A>): void;
  clock: Clock;
  log: Logger;
  random?: () => number;
}

/**
 * One device-code flow, start to end: show the code, poll at the server's interval, slow
 * down when told, back off on network trouble (never faster than the interval), and stop
 * on approval, denial, expiry or cancel. Every await is followed by a check that the flow
 * is still the current one, so a cancel wins over a poll in flight.
 */
export class DeviceCodeFlow<T, A extends object> {
  private state: DeviceCodeState<A> | null = null;
  private timer: TimerHandle | null = null;
  private active = false;
  private generation = 0;
  private handle = '';
  private intervalS = 5;
  private expiresAt = 0;
  private troubleAttempts = 0;

  constructor(private readonly deps: DeviceCodeFlowDeps<T, A>) {}

  get current(): DeviceCodeState<A> | null {
    return this.state;
  }

  get running(): boolean {
    return this.active;
  }

  async start(): Promise<void> {
    this.cancelTimer();
    const generation = ++this.generation;
    this.active = true;
    this.troubleAttempts = 0;
    this.set({ phase: 'starting' });
    try {
      const started = await this.deps.begin();
      if (generation !== this.generation) return;
      this.handle = started.handle;
      this.intervalS = Math.max(started.intervalS, 1);
      this.expiresAt = this.deps.clock.now() + started.expiresInS * 1000;
      this.set({
        phase: 'waiting',
        userCode: started.userCode,
        verificationUri: started.verificationUri,
        verificationUriComplete: started.verificationUriComplete,
        expiresAt: new Date(this.expiresAt).toISOString(),
        intervalSeconds: this.intervalS,
        trouble: null,
      });
      this.deps.log.info(`${this.deps.what} started: waiting for approval`, { verificationUri: started.verificationUri, expiresIn: started.expiresInS });
      this.schedule(this.intervalS * 1000, generation);
    } catch (error) {
      if (generation !== this.generation) return;
      this.finish({ phase: 'failed', message: `Could not start the ${this.deps.what}: ${errorText(error)}` });
    }
  }

  cancel(): void {
    if (!this.active) return;
    this.generation++;
    this.finish({ phase: 'canceled' });
    this.deps.log.info(`${this.deps.what} canceled`);
  }

  /** While polls fail (the `trouble` wait): polls at once; false when no such wait is on. */
  retryNow(): boolean {
    if (!this.active || this.state?.phase !== 'waiting' || !this.state.trouble || this.timer === null) return false;
    this.schedule(0, this.generation);
    return true;
  }

  /** Forgets a finished flow's outcome. */
  clear(): void {
    if (this.active) this.cancel();
    this.state = null;
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
      const outcome = await this.deps.poll(this.handle);
      if (generation !== this.generation) return;
      this.troubleAttempts = 0;
      if (this.state?.phase === 'waiting' && this.state.trouble) this.patchWaiting({ trouble: null });
      switch (outcome.kind) {
        case 'pending':
          return this.schedule(this.intervalS * 1000, generation);
        case 'slow_down':
          this.intervalS = Math.max(this.intervalS + SLOW_DOWN_STEP_S, outcome.intervalSeconds ?? 0);
          this.deps.log.info(`${this.deps.what}: the control plane asked us to slow down`, { intervalSeconds: this.intervalS });
          this.patchWaiting({ intervalSeconds: this.intervalS });
          return this.schedule(this.intervalS * 1000, generation);
        case 'denied':
          this.deps.log.warn(`${this.deps.what} was denied on the control plane`);
          return this.finish({ phase: 'denied' });
        case 'expired':
          return this.finish({ phase: 'expired' });
        case 'granted': {
          const details = await this.deps.onGranted(outcome.value);
          if (generation !== this.generation) return;
          this.deps.log.info(`${this.deps.what} approved`);
          return this.finish({ phase: 'approved', ...details });
        }
      }
    } catch (error) {
      if (generation !== this.generation) return;
      if (error instanceof ConnectorError && error.retryable) {
        const interval = this.intervalS * 1000;
        const delay = Math.max(interval, backoffDelay(this.troubleAttempts++, { baseMs: interval, capMs: TROUBLE_BACKOFF_CAP_MS }, this.deps.random));
        const retryAt = new Date(this.deps.clock.now() + delay).toISOString();
        this.patchWaiting({ trouble: { message: `Cannot reach the control plane (${error.message}).`, retryAt } });
        this.deps.log.warn(`${this.deps.what} poll failed; retrying`, { error: error.message, retryInMs: delay });
        return this.schedule(delay, generation);
      }
      this.deps.log.warn(`${this.deps.what} failed`, { error: errorText(error) });
      this.finish({ phase: 'failed', message: errorText(error) });
    }
  }

  private patchWaiting(patch: Partial<DeviceCodeWaiting>): void {
    if (this.state?.phase === 'waiting') this.set({ ...this.state, ...patch });
  }

  private finish(state: DeviceCodeState<A>): void {
    this.cancelTimer();
    this.active = false;
    this.handle = '';
    this.set(state);
  }

  private set(state: DeviceCodeState<A>): void {
    this.state = state;
    this.deps.onState(state);
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
