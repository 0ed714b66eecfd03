import type { PairingClaimResponse, PairingStartRequest, PairingStartResponse } from '../../../../shared/protocol';
import type { PairingState } from '../../../../shared/runner';
import type { RunnerConnector } from './connector';
import { DeviceCodeFlow } from '../../sign-in/device-code-flow';
import type { Clock, Logger } from '../../base/ports';

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

/** Runner pairing (protocol §1): the device-code flow over the pairing endpoints. */
export class PairingFlow {
  private readonly flow: DeviceCodeFlow<PairingClaimResponse, { runnerName: string }>;
  private request: PairingStartRequest | null = null;
  private how: PairingStart = { kind: 'device' };
  /** Claims by user code instead of pairing id (no pairing id is known). */
  private byCode = false;

  constructor(deps: PairingFlowDeps) {
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
        const started = await deps.connector.startPairing(this.request!);
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
      onState: (state) => deps.onState(state),
      clock: deps.clock,
      log: deps.log,
      ...(deps.random ? { random: deps.random } : {}),
    });
  }

  get current(): PairingState {
    return this.flow.current ?? { phase: 'starting' };
  }

  get running(): boolean {
    return this.flow.running;
  }

  start(request: PairingStartRequest, how: PairingStart = { kind: 'device' }): Promise<void> {
    this.request = request;
    this.how = how;
    return this.flow.start();
  }

  cancel(): void {
    this.flow.cancel();
  }
}
