import type { PairingClaimResponse, PairingStartRequest, PairingStartResponse } from '../../../../shared/protocol';
import type { PairingState } from '../../../../shared/runner';
import type { RunnerConnector } from './connector';
import { DeviceCodeFlow } from '../../sign-in/device-code-flow';
import type { Clock, Logger } from '../../base/ports';
import { RetryingAttempt, type RetryNotice } from './pairing-retry';

/**
 * How a pairing starts: our own device-code start, a code an operator got elsewhere
 * (`--user-code`, the web page), or a start someone already made (the seed's authenticated
 * `runner.pairing.start`, which may answer only a user code).
 */
export type PairingStart =
  | { kind: 'device' }
  | { kind: 'code'; userCode: string; verificationUri: string }
  | { kind: 'started'; started: { [K in keyof PairingStartResponse]?: PairingStartResponse[K] | undefined } & { user_code: string }; verificationUri: string };

/** A code an operator hands over stays valid this long unless its server said otherwise. */
const HANDED_CODE_EXPIRES_S = 600;
const HANDED_CODE_INTERVAL_S = 2;

export interface PairingFlowDeps {
  connector: Pick<RunnerConnector, 'startPairing' | 'pollPairing' | 'pollPairingByCode'>;
  clock: Clock;
  log: Logger;
  onState(state: PairingState): void;
  /** Stores the credentials; a thrown error fails the flow with its message. */
  onApproved(credentials: PairingClaimResponse): Promise<{ runnerName: string }>;
  random?: () => number;
}

/**
 * Runner pairing (protocol §1): the device-code flow over the pairing endpoints. A start the
 * control plane cannot take (refused, timed out, a 5xx) is tried again with backoff, the
 * state saying `retrying` meanwhile; a failing poll keeps its code and says `trouble`.
 * Either wait ends at once on `retryNow`.
 */
export class PairingFlow {
  private readonly flow: DeviceCodeFlow<PairingClaimResponse, { runnerName: string }>;
  private readonly retry: RetryingAttempt;
  private retrying: PairingState | null = null;
  /** Who waits for the next state (a start's first answer, a retry now's outcome). */
  private stateWaiters: (() => void)[] = [];
  private request: PairingStartRequest | null = null;
  private how: PairingStart = { kind: 'device' };
  /** Claims by user code instead of pairing id (no pairing id is known). */
  private byCode = false;

  constructor(private readonly deps: PairingFlowDeps) {
    this.retry = new RetryingAttempt({
      clock: deps.clock,
      ...(deps.random ? { random: deps.random } : {}),
      onRetrying: (notice) => this.onRetrying(notice),
    });
    this.flow = new DeviceCodeFlow({
      what: 'pairing',
      begin: async () => {
        const how = this.how;
        if (how.kind !== 'device') {
          const started = how.kind === 'started' ? how.started : { user_code: how.userCode };
          this.byCode = !started.pairing_id;
          return {
            handle: started.pairing_id ?? started.user_code,
            userCode: started.user_code,
            verificationUri: started.verification_uri ?? how.verificationUri,
            verificationUriComplete: started.verification_uri_complete ?? null,
            expiresInS: started.expires_in ?? HANDED_CODE_EXPIRES_S,
            intervalS: started.interval ?? HANDED_CODE_INTERVAL_S,
          };
        }
        this.byCode = false;
        const request = this.request!;
        const started = await this.retry.run(() => deps.connector.startPairing(request));
        return {
          handle: started.pairing_id,
          userCode: started.user_code,
          verificationUri: started.verification_uri,
          verificationUriComplete: started.verification_uri_complete ?? null,
          expiresInS: started.expires_in,
          intervalS: started.interval,
        };
      },
      poll: async (handle) => {
        const request = this.request!;
        const outcome = this.byCode
          ? await deps.connector.pollPairingByCode({
              user_code: handle,
              name: request.name,
              platform: request.platform,
              ...(request.runner_version ? { runner_version: request.runner_version } : {}),
              ...(request.hostname ? { hostname: request.hostname } : {}),
            })
          : await deps.connector.pollPairing(handle);
        return outcome.kind === 'approved' ? { kind: 'granted', value: outcome.credentials } : outcome;
      },
      onGranted: (credentials) => deps.onApproved(credentials),
      onState: (state) => {
        this.retrying = null;
        this.emit(state);
      },
      clock: deps.clock,
      log: deps.log,
      ...(deps.random ? { random: deps.random } : {}),
    });
  }

  get current(): PairingState {
    return this.retrying ?? this.flow.current ?? { phase: 'starting' };
  }

  /** A try waits for its time (a start that could not reach the control plane, a failing poll). */
  get retryPending(): boolean {
    return this.retry.waiting || (this.flow.current?.phase === 'waiting' && this.flow.current.trouble !== null);
  }

  get running(): boolean {
    return this.flow.running;
  }

  /** Resolves once the start is answered, or once its first failure is to be retried (the state then says `retrying`). */
  start(request: PairingStartRequest, how: PairingStart = { kind: 'device' }): Promise<void> {
    this.retry.cancel();
    this.request = request;
    this.how = how;
    return Promise.race([this.flow.start(), this.nextState((s) => s.phase !== 'starting')]);
  }

  /** Makes the waiting try at once; resolves with the state it led to (or the current one when nothing waited). */
  async retryNow(): Promise<PairingState> {
    // Neither wakes anything synchronously: the next state is the try's outcome.
    if (!this.retry.now() && !this.flow.retryNow()) return this.current;
    await this.nextState(() => true);
    return this.current;
  }

  cancel(): void {
    this.flow.cancel();
    this.retry.cancel();
  }

  private onRetrying(notice: RetryNotice): void {
    this.deps.log.warn('pairing could not reach the control plane; trying again', { error: notice.lastError, nextAttemptAt: notice.nextAttemptAt });
    this.retrying = { phase: 'retrying', what: 'pairing', ...notice };
    this.emit(this.retrying);
  }

  private emit(state: PairingState): void {
    this.deps.onState(state);
    const waiters = this.stateWaiters;
    this.stateWaiters = [];
    for (const waiter of waiters) waiter();
  }

  /** Resolves at the next state that matches. */
  private nextState(match: (state: PairingState) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (match(this.current)) resolve();
        else this.stateWaiters.push(check);
      };
      this.stateWaiters.push(check);
    });
  }
}
