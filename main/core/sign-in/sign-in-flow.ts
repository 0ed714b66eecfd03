import type { SignInState } from '../../../shared/operator';
import type { TokenResponse } from '../../../shared/protocol';
import { DeviceCodeFlow } from './device-code-flow';
import type { Clock, Logger } from '../base/ports';
import type { OAuthClient } from './oauth-client';

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

/** Operator sign-in: the device-code flow over the OAuth device authorization grant (RFC 8628). */
export class SignInFlow {
  private readonly flow: DeviceCodeFlow<TokenResponse, Record<never, never>>;

  constructor(deps: SignInFlowDeps) {
    this.flow = new DeviceCodeFlow({
      what: 'operator sign-in',
      begin: async () => {
        const started = await deps.oauth.startDeviceAuthorization();
        deps.registerSecret(started.device_code);
        return {
          handle: started.device_code,
          userCode: started.user_code,
          verificationUri: started.verification_uri,
          verificationUriComplete: started.verification_uri_complete ?? null,
          expiresInS: started.expires_in,
          intervalS: started.interval,
        };
      },
      poll: async (deviceCode) => {
        const outcome = await deps.oauth.pollDeviceToken(deviceCode);
        return outcome.kind === 'tokens' ? { kind: 'granted', value: outcome.tokens } : outcome;
      },
      onGranted: async (tokens) => {
        await deps.onTokens(tokens);
        return {};
      },
      onState: (state) => deps.onState(state),
      clock: deps.clock,
      log: deps.log,
      ...(deps.random ? { random: deps.random } : {}),
    });
  }

  get current(): SignInState | null {
    return this.flow.current;
  }

  get running(): boolean {
    return this.flow.running;
  }

  start(): Promise<void> {
    return this.flow.start();
  }

  cancel(): void {
    this.flow.cancel();
  }

  /** Forgets a finished flow's outcome (e.g. after sign-out). */
  clear(): void {
    this.flow.clear();
  }
}
