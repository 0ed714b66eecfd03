import type { PairingState, SecretStorageInfo } from '../../../../shared/runner';
import type { FetchLike } from '../../connectors/http-json';
import { OAuthTokenSource, sechroomOAuthClient, sechroomSignIn, StaticTokenSource, type SechroomTokenSource } from './sechroom-auth';
import { CommandFailure } from '../../base/dispatch';
import type { SignInFlow } from '../../sign-in/sign-in-flow';
import type { Clock, Logger } from '../../base/ports';
import type { SecretStore } from '../../secrets/secret-store';
import type { SechroomProfileConfig } from './sechroom-config';

export const SECHROOM_OAUTH_CLIENT_ID = 'runner-tray';

/** The sign-in's account name in the secret store: the profile's own, so two profiles never share a grant. */
export const sechroomAccountOf = (profile: string, config: SechroomProfileConfig) => `${profile}.${config.account}`;

export interface SechroomSignInDeps {
  profile: string;
  /** `SECHROOM_TOKEN` when it applies to this profile: a pre-minted bearer, never refreshed; used instead of a device sign-in. */
  envToken(): string | null;
  /** `SECHROOM_REFRESH_TOKEN` handed in with it: a 401 is then refreshed through the Work Layer's OAuth. */
  envRefreshToken?(): string | null;
  secrets: SecretStore | null;
  secretStorage: SecretStorageInfo;
  registerSecret(secret: string): void;
  knownSecrets(): readonly string[];
  fetch?: FetchLike;
  clock: Clock;
  log: Logger;
  random?: () => number;
  onChange(): void;
}

/** One Sechroom profile's bearer: `SECHROOM_TOKEN`, or the Work Layer's device sign-in with its tokens in the secret store. */
export class SechroomSignIn {
  private tokens: SechroomTokenSource | null = null;
  /** The source made for the handed-in bearer: kept while it is the same, so a rotated refresh token is not lost. */
  private handed: { key: string; source: StaticTokenSource } | null = null;
  private flow: SignInFlow | null = null;
  private state: PairingState | null = null;

  constructor(private readonly deps: SechroomSignInDeps) {}

  get signedIn(): boolean {
    return this.tokens !== null;
  }

  /** The bearer the executor uses now, if signed in. */
  get current(): SechroomTokenSource | null {
    return this.tokens;
  }

  /** Signed in with SECHROOM_TOKEN (decided when the executor last started). */
  get usingEnvToken(): boolean {
    return this.tokens instanceof StaticTokenSource;
  }

  get pairing(): PairingState | null {
    return this.state;
  }

  /** The settings changed: the next source is made for them. */
  reset(): void {
    this.tokens = null;
  }

  /** SECHROOM_TOKEN, else the stored sign-in; null (the status says to sign in) when there is neither. */
  async source(config: SechroomProfileConfig): Promise<SechroomTokenSource | null> {
    const envToken = this.deps.envToken();
    if (envToken) {
      this.tokens = this.handedSource(envToken, config);
      return this.tokens;
    }
    if (!this.deps.secrets) return null;
    const tokens = this.oauthTokens(config);
    const signedIn = await tokens.signedIn().catch(() => false);
    this.tokens = signedIn ? tokens : null;
    return this.tokens;
  }

  /** The device flow against the Work Layer's OAuth; with `SECHROOM_TOKEN` set there is nothing to sign in to. */
  async start(config: SechroomProfileConfig, onApproved: () => void): Promise<PairingState> {
    if (this.deps.envToken()) return { phase: 'approved', runnerName: config.instance.instanceKey };
    const tokens = this.oauthTokens(config);
    this.flow?.cancel();
    this.flow = sechroomSignIn({
      oauth: this.oauthClient(config),
      clock: this.deps.clock,
      log: this.deps.log,
      registerSecret: this.deps.registerSecret,
      ...(this.deps.random ? { random: this.deps.random } : {}),
      tokens,
      onState: (state) => {
        this.state = state.phase === 'approved' ? { phase: 'approved', runnerName: config.instance.instanceKey } : state;
        if (state.phase === 'approved') onApproved();
        this.deps.onChange();
      },
    });
    await this.flow.start();
    return this.state ?? { phase: 'starting' };
  }

  cancel(): void {
    this.flow?.cancel();
  }

  /** The stored tokens go (the secret store forgets them). */
  async signOut(): Promise<void> {
    if (this.tokens instanceof OAuthTokenSource) await this.tokens.signOut();
    this.tokens = null;
    this.state = null;
  }

  private handedSource(envToken: string, config: SechroomProfileConfig): StaticTokenSource {
    const refreshToken = this.deps.envRefreshToken?.() ?? null;
    const key = JSON.stringify([envToken, refreshToken, config.baseUrl]);
    if (this.handed?.key === key) return this.handed.source;
    this.deps.registerSecret(envToken);
    if (refreshToken) this.deps.registerSecret(refreshToken);
    const refresh = refreshToken ? { refreshToken, oauth: this.oauthClient(config), registerSecret: this.deps.registerSecret, log: this.deps.log } : null;
    this.handed = { key, source: new StaticTokenSource(envToken, refresh) };
    return this.handed.source;
  }

  private oauthTokens(config: SechroomProfileConfig): OAuthTokenSource {
    if (!this.deps.secrets) throw new CommandFailure('no_secret_store', this.deps.secretStorage.problem ?? 'No secret store works on this machine.');
    if (this.tokens instanceof OAuthTokenSource) return this.tokens;
    return new OAuthTokenSource({
      baseUrl: config.baseUrl,
      account: sechroomAccountOf(this.deps.profile, config),
      store: this.deps.secrets,
      registerSecret: this.deps.registerSecret,
      oauth: this.oauthClient(config),
      clock: this.deps.clock,
      log: this.deps.log,
      onChange: () => this.deps.onChange(),
    });
  }

  private oauthClient(config: SechroomProfileConfig) {
    return sechroomOAuthClient({
      baseUrl: config.baseUrl,
      clientId: SECHROOM_OAUTH_CLIENT_ID,
      ...(this.deps.fetch ? { fetch: this.deps.fetch } : {}),
      knownSecrets: this.deps.knownSecrets,
    });
  }
}
