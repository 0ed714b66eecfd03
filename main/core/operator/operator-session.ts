import type { OperatorIdentity, TokenResponse } from '../../../shared/protocol';
import { isConnectorError } from '../connectors/errors';
import { CommandFailure } from '../base/dispatch';
import type { Clock, Logger } from '../base/ports';
import type { OAuthClient } from '../sign-in/oauth-client';
import { OperatorErrorCode } from './operator-errors';
import { fromTokenResponse, type StoredOperator, type TokenVault } from '../sign-in/token-vault';
import { errorText } from '../../../shared/errors';

export interface OperatorSessionDeps {
  clock: Clock;
  log: Logger;
  vault: TokenVault;
  /** The control plane this session belongs to. */
  controlPlaneUrl: string;
  oauth: Pick<OAuthClient, 'refresh'>;
  onChange(): void;
}

export type SessionState =
  { state: 'checking' } | { state: 'signed_out' } | { state: 'signed_in'; identity: OperatorIdentity | null } | { state: 'sign_in_again'; reason: string };

/**
 * The signed-in operator of one control plane: the tokens (in the SecretStore, never
 * anywhere else), and calls made with them. A call answered 401 gets one refresh (shared
 * by every call that failed with the same token, because refresh tokens rotate) and one
 * retry; when the refresh is refused the tokens are dropped and the operator is asked to
 * sign in again.
 */
export class OperatorSession {
  private stored: StoredOperator | null = null;
  private loaded = false;
  private again: string | null = null;
  private refreshing: Promise<StoredOperator> | null = null;
  private closed = false;

  constructor(private readonly deps: OperatorSessionDeps) {}

  get state(): SessionState {
    if (!this.loaded) return { state: 'checking' };
    if (this.stored) return { state: 'signed_in', identity: this.stored.identity };
    if (this.again) return { state: 'sign_in_again', reason: this.again };
    return { state: 'signed_out' };
  }

  /** The stored tokens (for revocation at sign-out only). */
  get tokens(): StoredOperator | null {
    return this.stored;
  }

  get signedIn(): boolean {
    return this.stored !== null;
  }

  async load(): Promise<void> {
    try {
      const found = await this.deps.vault.load(this.deps.controlPlaneUrl);
      if (this.closed) return;
      if (found === 'damaged') this.deps.log.warn('the stored operator sign-in was unreadable and was removed; sign in again');
      this.stored = found === 'damaged' ? null : found;
    } catch (error) {
      this.deps.log.warn('could not read the operator sign-in from the secret store', { error: errorText(error) });
    }
    this.loaded = true;
    this.deps.onChange();
  }

  /** After a device flow: keep the new tokens and who they belong to. */
  async adopt(tokens: TokenResponse, identity: OperatorIdentity): Promise<void> {
    const next = fromTokenResponse(tokens, this.deps.clock.now(), identity);
    await this.deps.vault.save(this.deps.controlPlaneUrl, next);
    if (this.closed) return;
    this.stored = next;
    this.again = null;
    this.loaded = true;
    this.deps.onChange();
  }

  async setIdentity(identity: OperatorIdentity): Promise<void> {
    const current = this.stored;
    if (!current || JSON.stringify(current.identity) === JSON.stringify(identity)) return;
    this.stored = { ...current, identity };
    this.deps.onChange();
    await this.deps.vault.save(this.deps.controlPlaneUrl, this.stored).catch((error: unknown) => this.storeFailed(error));
  }

  /** The tokens as they are now (for sign-out), then forgotten here and in the store. */
  async forget(): Promise<StoredOperator | null> {
    const previous = this.stored;
    this.stored = null;
    this.again = null;
    await this.deps.vault.delete(this.deps.controlPlaneUrl);
    this.deps.onChange();
    return previous;
  }

  /** Runs `call` with the access token: on a 401, refresh once and retry once. */
  async authorized<T>(call: (accessToken: string) => Promise<T>): Promise<T> {
    const tokens = this.require();
    try {
      return await call(tokens.accessToken);
    } catch (error) {
      if (!isConnectorError(error, 'unauthorized')) throw error;
    }
    const fresh = await this.refreshAfter(tokens);
    try {
      return await call(fresh.accessToken);
    } catch (error) {
      if (isConnectorError(error, 'unauthorized')) throw await this.signInAgain('The control plane refused the renewed sign-in.');
      throw error;
    }
  }

  close(): void {
    this.closed = true;
  }

  private require(): StoredOperator {
    if (this.stored) return this.stored;
    if (this.again) throw new CommandFailure(OperatorErrorCode.signInAgain, this.again);
    throw new CommandFailure(OperatorErrorCode.notSignedIn, 'Sign in as an operator first.');
  }

  private refreshAfter(failed: StoredOperator): Promise<StoredOperator> {
    // Another call already replaced the token that failed: use the new one.
    if (this.stored && this.stored.accessToken !== failed.accessToken) return Promise.resolve(this.stored);
    this.refreshing ??= this.refresh(failed).finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async refresh(failed: StoredOperator): Promise<StoredOperator> {
    if (!failed.refreshToken) throw await this.signInAgain('Your sign-in expired. Sign in again.');
    const outcome = await this.deps.oauth.refresh(failed.refreshToken);
    if (this.closed || this.stored?.accessToken !== failed.accessToken) {
      return this.require();
    }
    if (outcome.kind === 'invalid_grant') {
      throw await this.signInAgain(`Your sign-in expired and could not be renewed (${outcome.message}). Sign in again.`);
    }
    const next = fromTokenResponse(outcome.tokens, this.deps.clock.now(), failed.identity, failed.refreshToken);
    this.stored = next;
    this.deps.log.info('operator access token refreshed after a 401');
    this.deps.onChange();
    // Refresh tokens rotate: the new pair must survive a restart, or the grant is lost.
    await this.deps.vault.save(this.deps.controlPlaneUrl, next).catch((error: unknown) => this.storeFailed(error));
    return next;
  }

  private async signInAgain(reason: string): Promise<CommandFailure> {
    this.stored = null;
    this.again = reason;
    this.deps.log.warn('operator sign-in no longer accepted: asking to sign in again');
    await this.deps.vault.delete(this.deps.controlPlaneUrl).catch((error: unknown) => this.storeFailed(error));
    this.deps.onChange();
    return new CommandFailure(OperatorErrorCode.signInAgain, reason);
  }

  private storeFailed(error: unknown): void {
    this.deps.log.warn('could not update the operator sign-in in the secret store', { error: errorText(error) });
  }
}
