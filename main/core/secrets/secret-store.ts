// The secret storage port. A secret goes in and comes out of the store; it never
// appears in an error, a log line or a status. Errors carry a code and a one-line
// message that says what to do.
import { z } from 'zod';

export type SecretBackend = 'keychain' | 'file';

export interface SecretStore {
  readonly backend: SecretBackend;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** True when an entry existed and was removed. */
  delete(account: string): Promise<boolean>;
}

/** What the UI may know about secret storage (the contract's type): where secrets live, never a secret. */

/** The keychain service name every entry of the app is filed under. */
export const SECRET_SERVICE = 'Runner Tray';

export type SecretStoreErrorCode =
  'keychain_unavailable' | 'keychain_timeout' | 'keychain_failed' | 'file_insecure' | 'file_unreadable' | 'file_write_failed' | 'invalid_input';

export class SecretStoreError extends Error {
  override readonly name = 'SecretStoreError';
  constructor(
    readonly code: SecretStoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const accountSchema = z
  .string({ error: 'A secret account must be text.' })
  .min(1, { error: 'A secret account must not be empty.' })
  .max(500, { error: 'A secret account must be at most 500 characters.' });
export const secretSchema = z
  .string({ error: 'A secret must be text.' })
  .min(1, { error: 'A secret must not be empty.' })
  .max(16_384, { error: 'A secret must be at most 16384 characters.' });

export function checkAccount(account: unknown): string {
  const r = accountSchema.safeParse(account);
  if (!r.success) throw new SecretStoreError('invalid_input', r.error.issues[0]?.message ?? 'Invalid account.');
  return r.data;
}

export function checkSecret(secret: unknown): string {
  const r = secretSchema.safeParse(secret);
  // The message is fixed text: the rejected value is never echoed.
  if (!r.success) throw new SecretStoreError('invalid_input', r.error.issues[0]?.message ?? 'Invalid secret.');
  return r.data;
}

function originOf(controlPlaneUrl: string): string {
  try {
    return new URL(controlPlaneUrl).origin;
  } catch {
    throw new SecretStoreError('invalid_input', 'The control plane URL is not a valid URL.');
  }
}

/** Account of the runner secret paired with a control plane: `runner:<origin>`. */
export function runnerAccount(controlPlaneUrl: string): string {
  return `runner:${originOf(controlPlaneUrl)}`;
}

/** Account of the signed-in operator's tokens for a control plane: `operator:<origin>`. */
export function operatorAccount(controlPlaneUrl: string): string {
  return `operator:${originOf(controlPlaneUrl)}`;
}
