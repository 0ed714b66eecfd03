import type { PairingClaimResponse, PairingStartRequest } from '../../../shared/protocol';
import type { PairingState } from '../../../shared/runner';
import type { RunnerConnector } from '../connectors/connector';
import { DeviceCodeFlow } from '../device-code/device-code-flow';
import type { Clock, Logger } from '../ports';

export interface PairingFlowDeps {
  connector: Pick<RunnerConnector, 'startPairing' | 'pollPairing'>;
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

  constructor(deps: PairingFlowDeps) {
    this.flow = new DeviceCodeFlow({
      what: 'pairing',
      begin: async () => {
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
      poll: async (pairingId) => {
        const outcome = await deps.connector.pollPairing(pairingId);
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

  start(request: PairingStartRequest): Promise<void> {
    this.request = request;
    return this.flow.start();
  }

  cancel(): void {
    this.flow.cancel();
  }
}
