import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSecretStore } from '../../../main/core/secrets/file-secret-store';
import { SecretStoreError } from '../../../main/core/secrets/secret-store';

const posix = process.platform !== 'win32';
const fake = () => `fake-${randomBytes(12).toString('hex')}`;
const mode = (p: string) => statSync(p).mode & 0o777;

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rt-secrets-'));
  dir = join(root, 'secrets');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

async function openStore(extra: Partial<Parameters<typeof FileSecretStore.open>[0]> = {}) {
  return FileSecretStore.open({ dir, service: 'Runner Tray', ...extra });
}

async function rejection(p: Promise<unknown>): Promise<SecretStoreError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof SecretStoreError) return error;
    throw error;
  }
  throw new Error('expected a SecretStoreError');
}

describe('FileSecretStore', () => {
  it('round-trips secrets per account', async () => {
    const { store } = await openStore();
    const a = fake();
    const b = fake();
    expect(store.backend).toBe('file');
    expect(await store.get('runner:https://a.example')).toBeNull();
    await store.set('runner:https://a.example', a);
    await store.set('operator:https://a.example', b);
    expect((await store.get('runner:https://a.example')) === a).toBe(true);
    expect((await store.get('operator:https://a.example')) === b).toBe(true);
    expect(await store.delete('runner:https://a.example')).toBe(true);
    expect(await store.delete('runner:https://a.example')).toBe(false);
    expect(await store.get('runner:https://a.example')).toBeNull();
  });

  it.runIf(posix)('creates a 0700 directory and a 0600 file', async () => {
    const { store, repaired } = await openStore();
    await store.set('acct', fake());
    expect(mode(dir)).toBe(0o700);
    expect(mode(store.path)).toBe(0o600);
    expect(repaired).toEqual([]);
  });

  it.runIf(posix)('tightens a too-open directory and stray write bits on open, and says so', async () => {
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const file = join(dir, 'secrets.json');
    writeFileSync(file, JSON.stringify({ version: 1, entries: {} }));
    chmodSync(file, 0o620);
    const { repaired } = await openStore();
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    expect(repaired).toEqual([`directory ${dir} was 0755, now 0700`, `file ${file} was 0620, now 0600`]);
  });

  it.runIf(posix)('refuses a file others can read, on open and before any later read', async () => {
    const secret = fake();
    const { store } = await openStore();
    await store.set('acct', secret);
    chmodSync(store.path, 0o644);
    const onGet = await rejection(store.get('acct'));
    expect(onGet.code).toBe('file_insecure');
    expect(onGet.message).toContain('readable by group or others (mode 0644)');
    expect(onGet.message).toContain(`chmod 600 '${store.path}'`);
    expect(onGet.message.includes(secret)).toBe(false);
    expect((await rejection(openStore())).code).toBe('file_insecure');
    expect(mode(store.path)).toBe(0o644); // refused, not "fixed" behind the operator's back
  });

  it.runIf(posix)('refuses a symlink in place of the file', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const elsewhere = join(root, 'elsewhere.json');
    writeFileSync(elsewhere, JSON.stringify({ version: 1, entries: {} }), { mode: 0o600 });
    symlinkSync(elsewhere, join(dir, 'secrets.json'));
    const error = await rejection(openStore());
    expect(error.code).toBe('file_insecure');
    expect(error.message).toContain('not a regular file');
  });

  it('writes atomically: a new file replaces the old one, no temp file is left', async () => {
    const { store } = await openStore();
    await store.set('acct', fake());
    const inodeBefore = statSync(store.path).ino;
    await store.set('acct', fake());
    expect(statSync(store.path).ino).not.toBe(inodeBefore);
    expect(readdirSync(dir)).toEqual(['secrets.json']);
  });

  it('leaves the previous file intact when a write fails', async () => {
    const first = fake();
    const { store: good } = await openStore();
    await good.set('acct', first);
    const before = readFileSync(good.path, 'utf8');
    const { store } = await openStore({
      writeFile: async () => {
        throw Object.assign(new Error('no space left'), { code: 'ENOSPC' });
      },
    });
    const second = fake();
    const error = await rejection(store.set('acct', second));
    expect(error.code).toBe('file_write_failed');
    expect(error.message).toContain('(ENOSPC: no space left); the previous file is unchanged');
    expect(error.message.includes(second)).toBe(false);
    expect(readFileSync(good.path, 'utf8')).toBe(before);
    expect((await store.get('acct')) === first).toBe(true);
  });

  it('serializes concurrent writes so none is lost', async () => {
    const { store } = await openStore();
    const values = Array.from({ length: 12 }, () => fake());
    await Promise.all(values.map((v, i) => store.set(`acct-${i}`, v)));
    const back = await Promise.all(values.map((_, i) => store.get(`acct-${i}`)));
    expect(back.every((v, i) => v === values[i])).toBe(true);
  });

  it('reports a corrupt file without quoting it', async () => {
    mkdirSync(dir, { mode: 0o700 });
    const secret = fake();
    writeFileSync(join(dir, 'secrets.json'), `{"version":1,"entries":{"Runner Tray":{"a":"${secret}"`, { mode: 0o600 });
    const error = await rejection(openStore());
    expect(error.code).toBe('file_unreadable');
    expect(error.message).toContain('is not valid JSON');
    expect(error.message.includes(secret)).toBe(false);
  });

  it('validates input without echoing the secret', async () => {
    const { store } = await openStore();
    expect((await rejection(store.set('', 'x'.repeat(10)))).message).toBe('A secret account must not be empty.');
    expect((await rejection(store.set('acct', ''))).message).toBe('A secret must not be empty.');
  });
});
