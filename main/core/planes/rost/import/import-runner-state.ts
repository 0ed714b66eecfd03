// Moves the runner secret of a `rost runner serve` state file into the SecretStore.
//
// Order matters: the secret is written to the store, read back and compared, and only
// then is the old file rewritten (atomically, same mode and owner, every other field
// kept) without `runner_secret`. Any failure before the rewrite lands leaves the old
// file exactly as it was and puts the store back as it was; the answer says which step
// failed and why, never the secret.
import { timingSafeEqual } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import { errorText } from '../../../../../shared/errors';
import { redactText } from '../../../../../shared/redact';
import type { SecretStore } from '../../../secrets/secret-store';
import type { SettingsStore } from '../../../settings/settings-store';
import { type RunnerStateSummary, type RuntimeSessionEntry, parseRunnerStateText, stateFileNameMatches } from './runner-state-file';

export type StateFileWriter = (path: string, data: string, options: { mode: number; chown?: { uid: number; gid: number } }) => Promise<void>;

export interface ImportRunnerStateOptions {
  file: string;
  secretStore: SecretStore;
  /** Where the secret goes, e.g. `runnerAccount(controlPlaneUrl)`. */
  account: string;
  /** The URL the secret will be used with; checked against the file's name when it has the CLI's default form. */
  controlPlaneUrl?: string;
  /** Refuse a file of another tenant (the seed's expectedTenantId). */
  expectedTenantId?: string;
  /** Overwrite a different secret already stored for `account` (default: refuse). */
  replaceExisting?: boolean;
  /** When given, the runner name of the file becomes the `runnerName` setting. */
  settingsStore?: SettingsStore;
  /** For tests; default write-file-atomic. */
  writeFile?: StateFileWriter;
  /** The user the file must belong to (default: this process's; POSIX only). */
  ownerUid?: number;
}

export type ImportStep = 'read' | 'parse' | 'tenant' | 'store' | 'verify' | 'rewrite';

export interface ImportedRunnerState {
  runnerId: string;
  tenantId?: string;
  name?: string;
  controlPlaneUrl?: string;
  runtimeSessions: Record<string, RuntimeSessionEntry>;
  account: string;
  backend: SecretStore['backend'];
  file: string;
  /** Things worth a log line or a notice (never the secret). */
  notes: string[];
}

export type ImportRunnerStateResult =
  | { ok: true; imported: ImportedRunnerState }
  /** `transient`: the secret store could not be reached (a keychain over D-Bus that did not answer); a later try may work. */
  | { ok: false; step: ImportStep; reason: string; transient?: boolean };

const defaultWriter: StateFileWriter = (path, data, options) => writeFileAtomic(path, data, { ...options, fsync: true });

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

type Failed = Extract<ImportRunnerStateResult, { ok: false }>;
type Fail = (step: ImportStep, reason: string, transient?: boolean) => Failed;
type Stat = Stats;

/**
 * Reads a regular file of this user that no one else can write (the CLI's default lives in
 * the shared temp directory, where another user could plant a file with a secret of their own
 * runner for us to take). Opened without following a symlink, then checked on the open
 * handle, so the file read is the file checked.
 */
async function readOwnFile(file: string, ownerUid: number | undefined, failed: Fail): Promise<Failed | { stat: Stat; text: string }> {
  try {
    const handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return failed('read', `${file} is not a regular file; nothing was imported.`);
      const owner = ownerUid ?? process.getuid?.();
      if (process.platform !== 'win32' && owner !== undefined && stat.uid !== owner) {
        return failed('read', `${file} belongs to another user (uid ${stat.uid}); only your own state file is imported. Nothing was imported.`);
      }
      if (process.platform !== 'win32' && (stat.mode & 0o022) !== 0) {
        return failed(
          'read',
          `${file} can be changed by other users (mode 0${(stat.mode & 0o777).toString(8)}); run chmod go-w on it if it is yours. Nothing was imported.`,
        );
      }
      return { stat, text: await handle.readFile('utf8') };
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') return failed('read', `${file} is not a regular file (a symlink); nothing was imported.`);
    return failed('read', `The state file ${file} could not be read (${errorText(error)}); nothing was imported.`);
  }
}

/** The checks after parsing: the tenant must match; a name or mode that looks off is a note. */
function checkFile(options: ImportRunnerStateOptions, summary: RunnerStateSummary, stat: Stat, notes: string[], failed: Fail): Failed | null {
  if (options.expectedTenantId && summary.tenantId !== options.expectedTenantId) {
    return failed(
      'tenant',
      `The state file belongs to tenant ${summary.tenantId ?? '(none)'}, not the expected ${options.expectedTenantId}; it was left as it is.`,
    );
  }
  if (options.controlPlaneUrl && stateFileNameMatches(options.file, options.controlPlaneUrl) === 'differs') {
    notes.push(`The file name suggests it was made for another control plane URL than ${options.controlPlaneUrl}; if pairing fails, pair again.`);
  }
  if ((stat.mode & 0o077) !== 0) {
    notes.push(
      `The old state file was readable or writable by others (mode 0${(stat.mode & 0o777).toString(8)}); its secret may have been exposed: consider pairing again.`,
    );
  }
  return null;
}

/**
 * Stores the secret, remembering what was there, and reads it back. Gives the way to put the
 * store back as it was (for a later step's failure), or the failure.
 */
async function storeSecret(options: ImportRunnerStateOptions, secret: string, failed: Fail): Promise<Failed | { restore: () => Promise<string> }> {
  const { secretStore: store, account } = options;
  let previous: string | null;
  try {
    previous = await store.get(account);
  } catch (error) {
    return failed('store', `The secret store could not be read (${errorText(error)}); the state file was left as it is.`, true);
  }
  if (previous !== null && !sameSecret(previous, secret) && !options.replaceExisting) {
    return failed('store', `A different runner secret is already stored for ${account}; unpair first (or replace it). The state file was left as it is.`);
  }
  const restore = async (): Promise<string> => {
    try {
      if (previous !== null) await store.set(account, previous);
      else await store.delete(account);
      return '';
    } catch (error) {
      return ` The secret store could not be put back as it was (${errorText(error)}).`;
    }
  };
  try {
    await store.set(account, secret);
  } catch (error) {
    return failed('store', `The secret could not be stored (${errorText(error)}); the state file was left as it is.${await restore()}`, true);
  }
  // Read back and compare before anything is removed from the old file.
  let back: string | null;
  try {
    back = await store.get(account);
  } catch (error) {
    return failed('verify', `The stored secret could not be read back (${errorText(error)}); the state file was left as it is.${await restore()}`, true);
  }
  if (back === null || !sameSecret(back, secret)) {
    return failed('verify', `The secret store returned a different value on read-back; the state file was left as it is.${await restore()}`);
  }
  return { restore };
}

/** Rewrites the old file without the secret, unless it changed meanwhile (a CLI still running). */
async function rewriteWithoutSecret(
  options: ImportRunnerStateOptions,
  read: { stat: Stat; text: string; document: Record<string, unknown> },
  restore: () => Promise<string>,
  failed: Fail,
): Promise<Failed | null> {
  const { file, secretStore: store, account } = options;
  try {
    const now = await readFile(file, 'utf8');
    if (now !== read.text) {
      return failed(
        'rewrite',
        `The state file changed during the import (is \`rost runner serve\` still running?); stop it and try again. The file was left as it is.${await restore()}`,
      );
    }
    const { runner_secret: _secret, ...rest } = read.document;
    const next = { ...rest, runner_secret_moved_to: `Runner Tray ${store.backend} (account ${account})` };
    // Same mode as before; same owner too when running as root (otherwise the owner is us, as it was).
    const asRoot = process.getuid?.() === 0;
    await (options.writeFile ?? defaultWriter)(file, `${JSON.stringify(next)}\n`, {
      mode: read.stat.mode & 0o777,
      ...(asRoot ? { chown: { uid: read.stat.uid, gid: read.stat.gid } } : {}),
    });
    return null;
  } catch (error) {
    return failed('rewrite', `The state file could not be rewritten without its secret (${errorText(error)}); it was left as it is.${await restore()}`);
  }
}

export async function importRunnerState(options: ImportRunnerStateOptions): Promise<ImportRunnerStateResult> {
  const { file, secretStore: store, account } = options;
  const known: string[] = [];
  // Reasons quote error messages of other modules: scrub them of the secret, whatever they say.
  const failed: Fail = (step, reason, transient) => ({ ok: false, step, reason: redactText(reason, known), ...(transient ? { transient } : {}) });

  const read = await readOwnFile(file, options.ownerUid, failed);
  if ('ok' in read) return read;
  const parsed = parseRunnerStateText(read.text);
  if (!parsed.ok) return failed('parse', `The state file ${file} cannot be imported: ${parsed.reason}. It was left as it is.`);
  const { summary, secret, document } = parsed;
  known.push(secret.reveal());
  const notes = [...parsed.notes];
  const refused = checkFile(options, summary, read.stat, notes, failed);
  if (refused) return refused;
  const stored = await storeSecret(options, secret.reveal(), failed);
  if ('ok' in stored) return stored;
  const rewriteFailed = await rewriteWithoutSecret(options, { ...read, document }, stored.restore, failed);
  if (rewriteFailed) return rewriteFailed;

  // Settings (optional): a failure here is a note, the import itself is done.
  if (options.settingsStore && summary.name) {
    const r = options.settingsStore.update({ runnerName: summary.name });
    if (!r.ok) notes.push(`The runner name from the file was not applied: ${r.error.message}`);
  }
  return {
    ok: true,
    imported: {
      runnerId: summary.runnerId,
      ...(summary.tenantId ? { tenantId: summary.tenantId } : {}),
      ...(summary.name ? { name: summary.name } : {}),
      ...(summary.controlPlaneUrl ? { controlPlaneUrl: summary.controlPlaneUrl } : {}),
      runtimeSessions: summary.runtimeSessions,
      account,
      backend: store.backend,
      file,
      notes,
    },
  };
}
