// Chooses where secrets live, honestly. The keychain is proven with a real round trip
// (set, get, compare, delete a probe entry) before it is used. When it does not work,
// the file store is used only if the operator chose it (`preferred: 'file'`) or allowed
// it (`allowFileStore`, the `--allow-file-secret-store` flag); otherwise the answer is
// ok:false with one line on what to do. It never downgrades silently: a file store
// always comes with a warning the UI shows.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { errorText } from '../../../shared/errors';
import { redactText } from '../../../shared/redact';
import type { Clock } from '../base/ports';
import { FileSecretStore, type AtomicWriter } from './file-secret-store';
import { KeychainSecretStore, type KeytarLoader } from './keychain-secret-store';
import type { SecretStorageInfo } from '../../../shared/runner';
import { type SecretBackend, type SecretStore } from './secret-store';

export interface OpenSecretStoreOptions {
  service: string;
  /** The app's data directory; the file store lives in `<dataDir>/secrets/`. */
  dataDir: string;
  preferred: SecretBackend;
  allowFileStore: boolean;
  keytarLoader?: KeytarLoader;
  /** Deadline of each keychain call, the probe's included (default 5000). */
  timeoutMs?: number;
  clock?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** For tests. */
  fileWriter?: AtomicWriter;
  platform?: string;
}

export type OpenSecretStoreResult = { ok: true; store: SecretStore; backend: SecretBackend; warning?: string; notes: string[] } | { ok: false; reason: string };

export const ALLOW_FILE_STORE_FLAG = '--allow-file-secret-store';

/** Proves the keychain works by writing, reading back and deleting a random probe entry. */
export async function probeKeychain(store: SecretStore): Promise<{ ok: true } | { ok: false; reason: string }> {
  const account = `probe:${randomBytes(6).toString('hex')}`;
  const value = randomBytes(18).toString('base64url');
  let written = false;
  try {
    await store.set(account, value);
    written = true;
    const back = await store.get(account);
    if (back !== value) return { ok: false, reason: 'the keychain returned a different value on read-back' };
    written = !(await store.delete(account));
    if (written) return { ok: false, reason: 'the keychain did not delete its probe entry' };
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: redactText(errorText(error)) };
  } finally {
    if (written) await store.delete(account).catch(() => false);
  }
}

function fileStoreWarning(path: string, why: string): string {
  return `Secrets are kept in an owner-only file (${path}), not in the OS keychain: ${why}.`;
}

async function openFileStore(options: OpenSecretStoreOptions, why: string): Promise<OpenSecretStoreResult> {
  try {
    const { store, repaired } = await FileSecretStore.open({
      dir: join(options.dataDir, 'secrets'),
      service: options.service,
      ...(options.fileWriter ? { writeFile: options.fileWriter } : {}),
      ...(options.platform ? { platform: options.platform } : {}),
    });
    const notes = repaired.map((r) => `tightened permissions: ${r}`);
    return { ok: true, store, backend: 'file', warning: fileStoreWarning(store.path, why), notes };
  } catch (error) {
    return { ok: false, reason: `The secret file cannot be used: ${redactText(errorText(error))}` };
  }
}

export async function openSecretStore(options: OpenSecretStoreOptions): Promise<OpenSecretStoreResult> {
  if (options.preferred === 'file') {
    return openFileStore(options, 'the file store was chosen in settings');
  }
  const keychain = new KeychainSecretStore({
    service: options.service,
    ...(options.keytarLoader ? { loader: options.keytarLoader } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const probe = await probeKeychain(keychain);
  if (probe.ok) return { ok: true, store: keychain, backend: 'keychain', notes: [] };
  // The store's own advice (after `;`) is replaced by the fuller one below.
  const cause = (probe.reason.split(';')[0] ?? probe.reason).replace(/[.\s]+$/, '');
  if (options.allowFileStore) {
    return openFileStore(options, `the keychain did not work (${cause}) and ${ALLOW_FILE_STORE_FLAG} was given`);
  }
  return {
    ok: false,
    reason: `The OS keychain is not usable (${cause}). Install and unlock a Secret Service (e.g. gnome-keyring), or start with ${ALLOW_FILE_STORE_FLAG} to keep the secret in an owner-only file.`,
  };
}

/**
 * What the UI may see about secret storage (never a secret), in the contract's shape:
 * `warning` is the visible notice of a weaker backend, `problem` why nothing works.
 */
export function describeSecretStorage(opened: OpenSecretStoreResult | null | undefined): SecretStorageInfo {
  if (!opened) return { backend: 'none', warning: null, problem: 'Secret storage has not been opened yet.' };
  if (!opened.ok) return { backend: 'none', warning: null, problem: opened.reason };
  return { backend: opened.backend, warning: opened.warning ?? null, problem: null };
}
