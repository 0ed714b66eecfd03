import type { SignInState } from '../../../shared/operator';
import type { TokenResponse } from '../../../shared/protocol';
import { ConnectorError } from '../connectors/errors';
import type { Clock, Logger, TimerHandle } from '../ports';
import { backoffDelay } from '../runner/backoff';
import type { OAuthClient } from './oauth-client';

/** RFC 8628 §3.5: slow_down adds 5 s to the interval for the rest of the flow. */
const SLOW_DOWN_STEP_S = 5;
const TROUBLE_BACKOFF_CAP_MS = 60_000;

export interface SignInFlowDeps {
  oauth: Pick<OAuthClient, 'startDeviceAuthorization' | 'pollDeviceToken'>;
  clock: Clock;
  log: Logger;
  onState(state: SignInState): void;
  /** Reads the identity and stores the tokens; a thrown error fails the flow with its message. */
  onTokens(tokens: TokenResponse): Promise<void>;
  /** The device code is a credential while it lives: it must never reach a log. */
  registerSecret(secret: string): void;
  random?: () => number;
}

/**
 * One operator sign-in with the OAuth device flow, start to end: show the code, poll the
 * token endpoint at the server's interval, slow down when told, back off on network
 * trouble, and stop on approval, denial, expiry or cancel. Like the runner's pairing flow,
 * every await is followed by a check that this flow is still the current one.
 */
export class SignInFlow {
  private state: SignInState | null = null;
  private timer: TimerHandle | null = null;
  private active = false;
  private generation = 0;
  private deviceCode = '';
  private intervalS = 5;
  private expiresAt = 0;
  private troubleAttempts = 0;

  constructor(private readonly deps: SignInFlowDeps) {}

  get current(): SignInState | null {
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
      const started = await this.deps.oauth.startDeviceAuthorization();
      if (generation !== this.generation) return;
      this.deps.registerSecret(started.device_code);
      this.deviceCode = started.device_code;
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
      this.deps.log.info('operator sign-in started: waiting for approval', { expiresIn: started.expires_in });
      this.schedule(this.intervalS * 1000, generation);
    } catch (error) {
      if (generation !== this.generation) return;
      this.finish({ phase: 'failed', message: `Could not start the sign-in: ${describe(error)}` });
    }
  }

  cancel(): void {
    if (!this.active) return;
    this.generation++;
    this.finish({ phase: 'canceled' });
    this.deps.log.info('operator sign-in canceled');
  }

  /** Forgets a finished flow's outcome (e.g. after sign-out). */
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
      const outcome = await this.deps.oauth.pollDeviceToken(this.deviceCode);
      if (generation !== this.generation) return;
      this.troubleAttempts = 0;
      if (this.state?.phase === 'waiting' && this.state.trouble) this.patchWaiting({ trouble: null });
      switch (outcome.kind) {
        case 'pending':
          return this.schedule(this.intervalS * 1000, generation);
        case 'slow_down':
          this.intervalS = Math.max(this.intervalS + SLOW_DOWN_STEP_S, outcome.intervalSeconds ?? 0);
          this.deps.log.info('operator sign-in: the control plane asked us to slow down', { intervalSeconds: this.intervalS });
          this.patchWaiting({ intervalSeconds: this.intervalS });
          return this.schedule(this.intervalS * 1000, generation);
        case 'denied':
          this.deps.log.warn('operator sign-in was denied on the control plane');
          return this.finish({ phase: 'denied' });
        case 'expired':
          return this.finish({ phase: 'expired' });
        case 'tokens':
          await this.deps.onTokens(outcome.tokens);
          if (generation !== this.generation) return;
          this.deps.log.info('operator signed in');
          return this.finish({ phase: 'approved' });
      }
    } catch (error) {
      if (generation !== this.generation) return;
      if (error instanceof ConnectorError && error.retryable) {
        // RFC 8628 §3.5: back off on connection trouble, but never poll faster than the interval.
        const interval = this.intervalS * 1000;
        const delay = Math.max(interval, backoffDelay(this.troubleAttempts++, { baseMs: interval, capMs: TROUBLE_BACKOFF_CAP_MS }, this.deps.random));
        const retryAt = new Date(this.deps.clock.now() + delay).toISOString();
        this.patchWaiting({ trouble: { message: `Cannot reach the control plane (${error.message}).`, retryAt } });
        this.deps.log.warn('operator sign-in poll failed; retrying', { error: error.message, retryInMs: delay });
        return this.schedule(delay, generation);
      }
      this.deps.log.warn('operator sign-in failed', { error: describe(error) });
      this.finish({ phase: 'failed', message: describe(error) });
    }
  }

  private patchWaiting(patch: Partial<Extract<SignInState, { phase: 'waiting' }>>): void {
    if (this.state?.phase === 'waiting') this.set({ ...this.state, ...patch });
  }

  private finish(state: SignInState): void {
    this.cancelTimer();
    this.active = false;
    this.deviceCode = '';
    this.set(state);
  }

  private set(state: SignInState): void {
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
