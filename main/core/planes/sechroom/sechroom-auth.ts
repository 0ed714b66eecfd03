import { errorText } from '../../../../shared/errors';
import type { TokenResponse } from '../../../../shared/protocol';
import { SECHROOM_SCOPE } from '../../../../shared/protocol/sechroom';
import { OAuthClient, type RefreshOutcome } from '../../sign-in/oauth-client';
import { SignInFlow, type SignInFlowDeps } from '../../sign-in/sign-in-flow';
import { fromTokenResponse, TokenVault, type StoredOperator } from '../../sign-in/token-vault';
import type { Clock, Logger } from '../../base/ports';
import type { SecretStore } from '../../secrets/secret-store';
import { ConnectorError, isConnectorError } from '../../connectors/errors';
import type { FetchLike } from '../../connectors/http-json';

/**
 * The Work Layer no longer takes our bearer and nothing here can fix that: the operator
 * must sign in again (`sign_in`) or mint a new `SECHROOM_TOKEN` (`new_token`). The messages
 * are the seed's (`forceRefreshToken`, `createAuthedRequest`) [seed B3].
 */
export class AuthExpiredError extends ConnectorError {
  constructor(
    message: string,
    readonly remedy: 'sign_in' | 'new_token',
  ) {
    super('unauthorized', message, 401, 'auth_expired');
    this.name = 'AuthExpiredError';
  }
}

export const SECHROOM_TOKEN_REJECTED = 'SECHROOM_TOKEN was rejected (401) and cannot be refreshed — mint a fresh bearer and re-export SECHROOM_TOKEN.';
export const handedRefreshRefusedMessage = (status: number) =>
  `SECHROOM_TOKEN was rejected (401) and the Work Layer refused SECHROOM_REFRESH_TOKEN (${status}) — mint a fresh pair and re-export SECHROOM_TOKEN and SECHROOM_REFRESH_TOKEN.`;
export const noRefreshTokenMessage = (account: string) =>
  `Session for account "${account}" was rejected (401) and has no refresh token. Run \`sechroom login --account ${account}\` again.`;
export const refreshFailedMessage = (account: string, status: number) => `Token refresh failed (${status}). Run \`sechroom login --account ${account}\` again.`;
export const stillUnauthorizedMessage = (method: string, path: string) =>
  `${method} ${path} still 401 after token refresh — re-authenticate (\`sechroom login\`).`;

/** Where a Work Layer client gets its bearer, and what it may do after a 401. */
export interface SechroomTokenSource {
  /** Which kind of credential this is (for status lines; never the token). */
  readonly kind: 'oauth' | 'static';
  /** The bearer to send; throws AuthExpiredError when there is none. */
  accessToken(): Promise<string>;
  /**
   * Called once after a 401 with the token that failed: a fresh token, or AuthExpiredError.
   * A network failure during the refresh stays a retryable ConnectorError (the grant is kept).
   */
  refreshAfter401(failed: string): Promise<string>;
}

/** `SECHROOM_REFRESH_TOKEN` handed in beside the bearer, and how to use it: the Work Layer's OAuth refresh. */
export interface HandedRefresh {
  refreshToken: string;
  oauth: Pick<OAuthClient, 'refresh'>;
  registerSecret(secret: string): void;
  log: Logger;
}

/**
 * A pre-minted `SECHROOM_TOKEN`: sent as is [seed B2]. Never refreshed, unless a
 * `SECHROOM_REFRESH_TOKEN` was handed in with it: then a 401 gets one refresh (shared by
 * every call that failed with the same token; refresh tokens rotate), and the new pair is
 * kept in memory for as long as the process runs.
 */
export class StaticTokenSource implements SechroomTokenSource {
  readonly kind = 'static';
  private token: string;
  private refreshToken: string | null;
  private refreshing: Promise<string> | null = null;
  /** Why the handed refresh token no longer works, once the Work Layer refused it. */
  private refused: string | null = null;

  constructor(
    /** The bearer as it was handed in (the session keeps a source while it is the same). */
    readonly handed: string,
    private readonly refresh: HandedRefresh | null = null,
  ) {
    if (!handed.trim()) throw new AuthExpiredError('SECHROOM_TOKEN is empty — mint a bearer and export SECHROOM_TOKEN.', 'new_token');
    this.token = handed;
    this.refreshToken = refresh?.refreshToken ?? null;
  }

  async accessToken(): Promise<string> {
    return this.token;
  }

  async refreshAfter401(failed: string): Promise<string> {
    // Another call already replaced the token that failed: use the new one.
    if (failed !== this.token) return this.token;
    this.refreshing ??= this.renew().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async renew(): Promise<string> {
    const refresh = this.refresh;
    const refreshToken = this.refreshToken;
    if (!refresh || !refreshToken) throw new AuthExpiredError(this.refused ?? SECHROOM_TOKEN_REJECTED, 'new_token');
    let outcome: RefreshOutcome;
    try {
      outcome = await refresh.oauth.refresh(refreshToken);
    } catch (error) {
      // Unreachable or broken token endpoint: not a verdict on the refresh token. Keep it, let the caller back off.
      if (isConnectorError(error) && error.retryable) throw error;
      throw this.refuse(refresh, isConnectorError(error) ? (error.status ?? 0) : 0);
    }
    if (outcome.kind === 'invalid_grant') throw this.refuse(refresh, outcome.status ?? 400);
    const { access_token: access, refresh_token: next } = outcome.tokens;
    refresh.registerSecret(access);
    if (next) refresh.registerSecret(next);
    this.token = access;
    this.refreshToken = next ?? refreshToken;
    refresh.log.info('the handed-in Sechroom bearer was refreshed after a 401');
    return access;
  }

  private refuse(refresh: HandedRefresh, status: number): AuthExpiredError {
    this.refreshToken = null;
    this.refused = handedRefreshRefusedMessage(status);
    refresh.log.warn('the Work Layer refused SECHROOM_REFRESH_TOKEN: mint a fresh pair');
    return new AuthExpiredError(this.refused, 'new_token');
  }
}

/** The SecretStore account of a Sechroom sign-in: one per Work Layer base URL and account name. */
export function sechroomTokenAccount(baseUrl: string, account: string): string {
  const url = new URL(baseUrl);
  return `sechroom:${url.origin}${url.pathname.replace(/\/+$/, '')}#${account}`;
}

/** RFC 8414 §3: the metadata of an issuer with a path is at `/.well-known/oauth-authorization-server<path>`. */
export function sechroomMetadataPath(baseUrl: string): string {
  const path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  return `/.well-known/oauth-authorization-server${path}`;
}

/** The Work Layer's OAuth client: its own metadata, and device sign-in with the `sechroom` scope. */
export function sechroomOAuthClient(options: { baseUrl: string; clientId: string; fetch?: FetchLike; knownSecrets?: () => readonly string[] }): OAuthClient {
  return new OAuthClient({ ...options, metadataPath: sechroomMetadataPath(options.baseUrl), scope: SECHROOM_SCOPE });
}

export interface OAuthTokenSourceDeps {
  baseUrl: string;
  /** The seed's `--account` name; part of the secret's account and of the messages. */
  account: string;
  store: SecretStore;
  registerSecret(secret: string): void;
  oauth: Pick<OAuthClient, 'refresh'>;
  clock: Clock;
  log: Logger;
  /** The sign-in changed (refreshed, dropped): a status view may want to know. */
  onChange?(): void;
}

/**
 * OAuth tokens in the SecretStore. A 401 gets one refresh, shared by every call that failed
 * with the same token (refresh tokens rotate), then the seed's "login again" messages; a
 * refused grant is dropped from the store so nothing retries it.
 */
export class OAuthTokenSource implements SechroomTokenSource {
  readonly kind = 'oauth';
  private readonly vault: TokenVault;
  private stored: StoredOperator | null | undefined;
  private refreshing: Promise<string> | null = null;
  private expired: string | null = null;

  constructor(private readonly deps: OAuthTokenSourceDeps) {
    this.vault = new TokenVault(deps.store, deps.registerSecret, () => sechroomTokenAccount(deps.baseUrl, deps.account));
  }

  /** Why the sign-in is no longer usable, once it is not. */
  get signInAgainReason(): string | null {
    return this.expired;
  }

  async signedIn(): Promise<boolean> {
    return (await this.load()) !== null;
  }

  /** After a device flow: keep the new tokens. */
  async adopt(tokens: TokenResponse): Promise<void> {
    const next = fromTokenResponse(tokens, this.deps.clock.now(), null);
    await this.vault.save(this.deps.baseUrl, next);
    this.stored = next;
    this.expired = null;
    this.deps.onChange?.();
  }

  async signOut(): Promise<void> {
    this.stored = null;
    await this.vault.delete(this.deps.baseUrl);
    this.deps.onChange?.();
  }

  async accessToken(): Promise<string> {
    const stored = await this.load();
    if (!stored)
      throw new AuthExpiredError(
        this.expired ?? `No Sechroom sign-in for account "${this.deps.account}". Run \`sechroom login --account ${this.deps.account}\` first.`,
        'sign_in',
      );
    return stored.accessToken;
  }

  async refreshAfter401(failed: string): Promise<string> {
    const stored = await this.load();
    // Another call already replaced the token that failed: use the new one.
    if (stored && stored.accessToken !== failed) return stored.accessToken;
    this.refreshing ??= this.refresh(stored).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refresh(stored: StoredOperator | null): Promise<string> {
    const account = this.deps.account;
    if (!stored?.refreshToken) throw await this.drop(noRefreshTokenMessage(account));
    let outcome: RefreshOutcome;
    try {
      outcome = await this.deps.oauth.refresh(stored.refreshToken);
    } catch (error) {
      // Unreachable or broken token endpoint: not a verdict on the grant. Keep it, let the caller back off.
      if (isConnectorError(error) && error.retryable) throw error;
      throw await this.drop(refreshFailedMessage(account, isConnectorError(error) ? (error.status ?? 0) : 0));
    }
    if (outcome.kind === 'invalid_grant') throw await this.drop(refreshFailedMessage(account, outcome.status ?? 400));
    const next = fromTokenResponse(outcome.tokens, this.deps.clock.now(), null, stored.refreshToken);
    this.stored = next;
    this.deps.log.info('Sechroom access token refreshed after a 401');
    // Refresh tokens rotate: the new pair must survive a restart, or the grant is lost.
    await this.vault
      .save(this.deps.baseUrl, next)
      .catch((error: unknown) => this.deps.log.warn('could not store the refreshed Sechroom sign-in', { error: errorText(error) }));
    this.deps.onChange?.();
    return next.accessToken;
  }

  private async drop(message: string): Promise<AuthExpiredError> {
    this.stored = null;
    this.expired = message;
    this.deps.log.warn('Sechroom sign-in no longer accepted: sign in again');
    await this.vault.delete(this.deps.baseUrl).catch(() => undefined);
    this.deps.onChange?.();
    return new AuthExpiredError(message, 'sign_in');
  }

  private async load(): Promise<StoredOperator | null> {
    if (this.stored !== undefined) return this.stored;
    const found = await this.vault.load(this.deps.baseUrl);
    if (found === 'damaged') this.deps.log.warn('the stored Sechroom sign-in was unreadable and was removed; sign in again');
    this.stored = found === 'damaged' ? null : found;
    return this.stored;
  }
}

/** Device-code sign-in against the Work Layer's OAuth (scope `sechroom`); the tokens land in the token source. */
export function sechroomSignIn(deps: Omit<SignInFlowDeps, 'onTokens'> & { tokens: Pick<OAuthTokenSource, 'adopt'> }): SignInFlow {
  const { tokens, ...rest } = deps;
  return new SignInFlow({ ...rest, onTokens: (response) => tokens.adopt(response) });
}
