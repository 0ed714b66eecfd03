// Secrets in the OS keychain through keytar (macOS Keychain, Windows Credential
// Manager, the Secret Service on Linux). keytar is a native optional dependency: it is
// loaded on first use through an injectable loader, and every call, the load included,
// has a deadline, because a locked or absent Secret Service can leave a call hanging.
import { errorText } from '../../../shared/errors';
import { redactText } from '../../../shared/redact';
import { type Clock, systemClock } from '../base/ports';
import { SecretStoreError, type SecretStore, checkAccount, checkSecret } from './secret-store';

/** The three keytar functions the store uses. */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}
export type KeytarLoader = () => Promise<KeytarLike>;

export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 5000;

export const loadKeytar: KeytarLoader = async () => {
  const mod = (await import('keytar')) as unknown as { default?: KeytarLike } & Partial<KeytarLike>;
  const api = mod.default ?? mod;
  if (typeof api.getPassword !== 'function' || typeof api.setPassword !== 'function' || typeof api.deletePassword !== 'function') {
    throw new Error('keytar does not export getPassword/setPassword/deletePassword');
  }
  return api as KeytarLike;
};

export interface KeychainSecretStoreOptions {
  service: string;
  loader?: KeytarLoader;
  timeoutMs?: number;
  clock?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
}

const WHAT_TO_DO = 'is a Secret Service (e.g. gnome-keyring) running and unlocked?';

export class KeychainSecretStore implements SecretStore {
  readonly backend = 'keychain' as const;
  private readonly service: string;
  private readonly loader: KeytarLoader;
  private readonly timeoutMs: number;
  private readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  private keytar: Promise<KeytarLike> | null = null;

  constructor(options: KeychainSecretStoreOptions) {
    this.service = options.service;
    this.loader = options.loader ?? loadKeytar;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
  }

  async get(account: string): Promise<string | null> {
    const acct = checkAccount(account);
    const k = await this.module();
    const value = await this.call('reading a secret', () => k.getPassword(this.service, acct));
    return typeof value === 'string' ? value : null;
  }

  async set(account: string, secret: string): Promise<void> {
    const acct = checkAccount(account);
    const value = checkSecret(secret);
    const k = await this.module();
    await this.call('storing a secret', () => k.setPassword(this.service, acct, value));
  }

  async delete(account: string): Promise<boolean> {
    const acct = checkAccount(account);
    const k = await this.module();
    return (await this.call('deleting a secret', () => k.deletePassword(this.service, acct))) === true;
  }

  private module(): Promise<KeytarLike> {
    if (!this.keytar) {
      const loading = this.withDeadline('loading the keychain module', () => this.loader()).catch((error: unknown) => {
        this.keytar = null; // a later call may try again (e.g. after the user unlocked something)
        if (error instanceof SecretStoreError && error.code === 'keychain_timeout') throw error;
        throw new SecretStoreError('keychain_unavailable', `The OS keychain module could not be loaded (${redactText(errorText(error))}).`);
      });
      this.keytar = loading;
    }
    return this.keytar;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.withDeadline(what, fn);
    } catch (error) {
      if (error instanceof SecretStoreError) throw error;
      throw new SecretStoreError('keychain_failed', `The OS keychain failed while ${what} (${redactText(errorText(error))}); ${WHAT_TO_DO}`);
    }
  }

  private withDeadline<T>(what: string, fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = this.clock.setTimeout(() => {
        if (settled) return;
        settled = true;
        const seconds = Math.round(this.timeoutMs / 100) / 10;
        reject(new SecretStoreError('keychain_timeout', `The OS keychain did not answer within ${seconds} s while ${what}; ${WHAT_TO_DO}`));
      }, this.timeoutMs);
      let pending: Promise<T>;
      try {
        pending = fn();
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => {
          if (settled) return;
          settled = true;
          this.clock.clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          this.clock.clearTimeout(timer);
          reject(error);
        },
      );
    });
  }
}
