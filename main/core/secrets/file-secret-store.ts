// Secrets in an owner-only JSON file, for headless machines without a working
// keychain, and only when the operator opted in (`--allow-file-secret-store` or the
// `file` secret backend). The directory is 0700 and the file 0600; both are checked
// when the store opens and the file again before every read. A file others could
// read is refused, not repaired: its secret may already be out, and the operator has
// to decide (re-pair, or chmod it back) rather than have it silently "fixed".
// Writes are atomic (temp file + rename, by write-file-atomic) and serialized.
import { chmod, lstat, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { errorText } from '../../../shared/errors';
import { redactText } from '../../../shared/redact';
import { SecretStoreError, type SecretStore, checkAccount, checkSecret } from './secret-store';

export type AtomicWriter = (path: string, data: string, mode: number) => Promise<void>;

export interface FileSecretStoreOptions {
  /** Directory of the file; created 0700 when missing. */
  dir: string;
  /** Default `secrets.json`. */
  fileName?: string;
  service: string;
  /** Injected for tests; default write-file-atomic. */
  writeFile?: AtomicWriter;
  /** Permission checks are POSIX-only; default `process.platform`. */
  platform?: string;
}

const fileSchema = z.object({
  version: z.literal(1),
  entries: z.record(z.string(), z.record(z.string(), z.string())),
});
type SecretFile = z.infer<typeof fileSchema>;

const defaultWriter: AtomicWriter = (path, data, mode) => writeFileAtomic(path, data, { mode, fsync: true });

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

export class FileSecretStore implements SecretStore {
  readonly backend = 'file' as const;
  readonly path: string;
  private readonly dir: string;
  private readonly service: string;
  private readonly writer: AtomicWriter;
  private readonly posix: boolean;
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(options: FileSecretStoreOptions) {
    this.dir = options.dir;
    this.path = join(options.dir, options.fileName ?? 'secrets.json');
    this.service = options.service;
    this.writer = options.writeFile ?? defaultWriter;
    this.posix = (options.platform ?? process.platform) !== 'win32';
  }

  /**
   * Opens the store: creates or tightens the directory (0700), tightens stray write or
   * execute bits on the file (0600), refuses a file others can read, a symlink, or a
   * file of another user, and checks that an existing file parses. `repaired` lists
   * what was tightened, for a log line.
   */
  static async open(options: FileSecretStoreOptions): Promise<{ store: FileSecretStore; repaired: string[] }> {
    const store = new FileSecretStore(options);
    const repaired: string[] = [];
    try {
      await mkdir(store.dir, { recursive: true, mode: 0o700 });
      if (store.posix) {
        const d = await lstat(store.dir);
        if (!d.isDirectory()) throw new SecretStoreError('file_insecure', `${store.dir} is not a directory.`);
        if ((d.mode & 0o077) !== 0) {
          await chmod(store.dir, 0o700);
          repaired.push(`directory ${store.dir} was ${octal(d.mode)}, now 0700`);
        }
      }
    } catch (error) {
      if (error instanceof SecretStoreError) throw error;
      throw new SecretStoreError('file_unreadable', `The secret directory ${store.dir} could not be prepared (${redactText(errorText(error))}).`);
    }
    const fixed = await store.checkFile(true);
    if (fixed) repaired.push(fixed);
    await store.readAll();
    return { store, repaired };
  }

  async get(account: string): Promise<string | null> {
    const acct = checkAccount(account);
    await this.queue.catch(() => undefined); // read after pending writes
    const data = await this.readAll();
    return data.entries[this.service]?.[acct] ?? null;
  }

  async set(account: string, secret: string): Promise<void> {
    const acct = checkAccount(account);
    const value = checkSecret(secret);
    return this.serialized(async () => {
      const data = await this.readAll();
      const entries = { ...data.entries, [this.service]: { ...data.entries[this.service], [acct]: value } };
      await this.writeAll({ version: 1, entries });
    });
  }

  async delete(account: string): Promise<boolean> {
    const acct = checkAccount(account);
    return this.serialized(async () => {
      const data = await this.readAll();
      const mine = data.entries[this.service];
      if (!mine || !Object.hasOwn(mine, acct)) return false;
      const { [acct]: _removed, ...rest } = mine;
      const entries = { ...data.entries, [this.service]: rest };
      if (Object.keys(rest).length === 0) delete entries[this.service];
      await this.writeAll({ version: 1, entries });
      return true;
    });
  }

  private serialized<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(op, op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Returns a note when it tightened the mode; throws when the file must not be used. */
  private async checkFile(repair: boolean): Promise<string | null> {
    if (!this.posix) return null;
    let st;
    try {
      st = await lstat(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new SecretStoreError('file_unreadable', `The secret file ${this.path} could not be checked (${redactText(errorText(error))}).`);
    }
    if (st.isSymbolicLink() || !st.isFile()) {
      throw new SecretStoreError('file_insecure', `The secret file ${this.path} is not a regular file (a symlink or other); refusing to use it.`);
    }
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      throw new SecretStoreError('file_insecure', `The secret file ${this.path} belongs to another user (uid ${st.uid}); refusing to use it.`);
    }
    if ((st.mode & 0o044) !== 0) {
      throw new SecretStoreError(
        'file_insecure',
        `The secret file ${this.path} is readable by group or others (mode ${octal(st.mode)}), so its secret may be exposed; refusing to read it. Re-pair this machine, or if you are sure nobody read it, run: chmod 600 '${this.path}'.`,
      );
    }
    if ((st.mode & 0o177) !== 0) {
      if (!repair) return null;
      await chmod(this.path, 0o600);
      return `file ${this.path} was ${octal(st.mode)}, now 0600`;
    }
    return null;
  }

  private async readAll(): Promise<SecretFile> {
    await this.checkFile(false);
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, entries: {} };
      throw new SecretStoreError('file_unreadable', `The secret file ${this.path} could not be read (${redactText(errorText(error))}).`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      // Never quote the content: it is secrets.
      throw new SecretStoreError('file_unreadable', `The secret file ${this.path} is not valid JSON; move it aside and pair again.`);
    }
    const parsed = fileSchema.safeParse(json);
    if (!parsed.success) {
      throw new SecretStoreError('file_unreadable', `The secret file ${this.path} is not in the expected format; move it aside and pair again.`);
    }
    return parsed.data;
  }

  private async writeAll(data: SecretFile): Promise<void> {
    try {
      await this.writer(this.path, `${JSON.stringify(data, null, 2)}\n`, 0o600);
      if (this.posix) await chmod(this.path, 0o600);
    } catch (error) {
      throw new SecretStoreError(
        'file_write_failed',
        `The secret file ${this.path} could not be written (${redactText(errorText(error))}); the previous file is unchanged.`,
      );
    }
  }
}
