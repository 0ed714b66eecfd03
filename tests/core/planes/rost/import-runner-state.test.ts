import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importRunnerState } from '../../../../main/core/planes/rost/import/import-runner-state';
import { parseRunnerStateText, seedStateFileName, stateFileNameMatches } from '../../../../main/core/planes/rost/import/runner-state-file';
import type { SecretStore } from '../../../../main/core/secrets/secret-store';
import { type SettingsBackend, createSettingsStore } from '../../../../main/core/settings/settings-store';

class MemoryStore implements SecretStore {
  readonly backend = 'keychain' as const;
  entries = new Map<string, string>();
  failSet = false;
  corruptReads = false;
  async get(account: string) {
    const v = this.entries.get(account) ?? null;
    return this.corruptReads && v !== null ? `${v}-garbled` : v;
  }
  async set(account: string, secret: string) {
    if (this.failSet) throw new Error('keychain is locked');
    this.entries.set(account, secret);
  }
  async delete(account: string) {
    return this.entries.delete(account);
  }
}

const ACCOUNT = 'runner:https://rost.example';
const URL_ = 'https://rost.example';
let dir: string;
let secret: string;
let file: string;
let original: string;
let doc: Record<string, unknown>;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rt-import-'));
  secret = `fake-runner-secret-${randomBytes(16).toString('hex')}`;
  file = join(dir, seedStateFileName(URL_));
  doc = {
    runner_id: 'run_123',
    runner_secret: secret,
    tenant_id: 'ten_9',
    name: 'old-box',
    runtime_sessions: { 'ten_9:seat:s1:user:u1:session:x:claude': { claude_session_id: 'cs_1', updated_at: '2026-11-30T10:00:00Z' } },
    some_future_field: { kept: true },
  };
  original = `${JSON.stringify(doc)}\n`;
  writeFileSync(file, original, { mode: 0o600 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const leaks = (value: unknown) => JSON.stringify(value).includes(secret) || inspect(value, { depth: 10 }).includes(secret);

describe('parseRunnerStateText', () => {
  it('reads the seed shape and hides the secret from every printout', () => {
    const r = parseRunnerStateText(original);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.summary).toEqual({
      runnerId: 'run_123',
      tenantId: 'ten_9',
      name: 'old-box',
      runtimeSessions: { 'ten_9:seat:s1:user:u1:session:x:claude': { claude_session_id: 'cs_1', updated_at: '2026-11-30T10:00:00Z' } },
    });
    expect(r.secret.reveal() === secret).toBe(true);
    expect(leaks({ secret: r.secret }) || String(r.secret).includes(secret)).toBe(false);
  });

  it('drops malformed runtime_sessions like the CLI, and reads a URL if one was added', () => {
    const r = parseRunnerStateText(JSON.stringify({ runner_id: 'r', runner_secret: 's', runtime_sessions: { k: 'nope' }, app_url: 'https://x.example/' }));
    expect(r.ok && r.summary.runtimeSessions).toEqual({});
    expect(r.ok && r.notes[0]).toContain('runtime_sessions was malformed');
    expect(r.ok && r.summary.controlPlaneUrl).toBe('https://x.example');
  });

  it.each([
    ['not json', 'it is not valid JSON'],
    ['[1]', 'it does not hold a JSON object'],
    ['{"runner_secret":"s"}', 'it is not a runner state file (runner_id is missing)'],
    ['{"runner_id":"r"}', 'it is not a runner state file (runner_secret is missing)'],
    ['{"runner_id":"r","runner_secret":""}', 'it is not a runner state file (runner_secret is empty)'],
  ])('explains why %s is not importable', (text, reason) => {
    expect(parseRunnerStateText(text)).toEqual({ ok: false, reason });
  });

  it('checks the CLI default file name against a URL', () => {
    expect(stateFileNameMatches(file, URL_)).toBe('matches');
    expect(stateFileNameMatches(file, `${URL_}/`)).toBe('matches');
    expect(stateFileNameMatches(file, 'https://other.example')).toBe('differs');
    expect(stateFileNameMatches('/etc/runner/state.json', URL_)).toBe('unknown');
  });
});

describe('importRunnerState', () => {
  it('moves the secret, verifies it, and rewrites the file without it (other fields, mode kept)', async () => {
    chmodSync(file, 0o640);
    const store = new MemoryStore();
    const memory: { data: unknown } = { data: undefined };
    const backend: SettingsBackend = { read: () => memory.data, write: (d) => void (memory.data = d) };
    const settingsStore = createSettingsStore({ backend, hostname: 'h' });
    const r = await importRunnerState({ file, secretStore: store, account: ACCOUNT, controlPlaneUrl: URL_, settingsStore });
    expect(r.ok).toBe(true);
    expect(leaks(r)).toBe(false);
    if (!r.ok) return;
    expect(r.imported).toMatchObject({ runnerId: 'run_123', tenantId: 'ten_9', name: 'old-box', account: ACCOUNT, backend: 'keychain', file });
    expect(Object.keys(r.imported.runtimeSessions)).toEqual(['ten_9:seat:s1:user:u1:session:x:claude']);
    expect(r.imported.notes[0]).toContain('mode 0640');
    expect(store.entries.get(ACCOUNT) === secret).toBe(true);
    const rewritten = readFileSync(file, 'utf8');
    expect(rewritten.includes(secret)).toBe(false);
    const { runner_secret: _gone, ...rest } = doc;
    expect(JSON.parse(rewritten)).toEqual({ ...rest, runner_secret_moved_to: `Runner Tray keychain (account ${ACCOUNT})` });
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual([seedStateFileName(URL_)]);
    expect(settingsStore.get().runnerName).toBe('old-box');
  });

  it('leaves the file untouched and the store empty when the secret cannot be stored', async () => {
    const store = new MemoryStore();
    store.failSet = true;
    const r = await importRunnerState({ file, secretStore: store, account: ACCOUNT });
    // A store that did not take the secret may take it later: the failure says a retry may work.
    expect(r).toEqual({
      ok: false,
      step: 'store',
      reason: 'The secret could not be stored (keychain is locked); the state file was left as it is.',
      transient: true,
    });
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(store.entries.size).toBe(0);
  });

  it('does not remove anything when the read-back differs, and restores the store', async () => {
    const store = new MemoryStore();
    store.corruptReads = true;
    const r = await importRunnerState({ file, secretStore: store, account: ACCOUNT });
    expect(r).toMatchObject({ ok: false, step: 'verify' });
    expect(leaks(r)).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(store.entries.size).toBe(0);
  });

  it('leaves the file intact and puts the previous secret back when the rewrite fails', async () => {
    const store = new MemoryStore();
    const r = await importRunnerState({
      file,
      secretStore: store,
      account: ACCOUNT,
      writeFile: async () => {
        throw Object.assign(new Error(`EACCES: permission denied, open '${file}'`), { code: 'EACCES' });
      },
    });
    expect(r).toMatchObject({ ok: false, step: 'rewrite' });
    expect(!r.ok && r.reason).toContain('could not be rewritten without its secret (EACCES: permission denied');
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(store.entries.size).toBe(0);
  });

  it('backs off when the file changes during the import (a CLI still running)', async () => {
    const store = new MemoryStore();
    const set = store.set.bind(store);
    const changed = original.replace('old-box', 'old-box-2');
    store.set = async (account, value) => {
      await set(account, value);
      writeFileSync(file, changed);
    };
    const r = await importRunnerState({ file, secretStore: store, account: ACCOUNT });
    expect(r).toMatchObject({ ok: false, step: 'rewrite', reason: expect.stringContaining('changed during the import') });
    expect(readFileSync(file, 'utf8')).toBe(changed);
    expect(store.entries.size).toBe(0);
  });

  it('refuses to replace a different secret already stored, unless asked', async () => {
    const store = new MemoryStore();
    store.entries.set(ACCOUNT, 'fake-other-secret');
    const refused = await importRunnerState({ file, secretStore: store, account: ACCOUNT });
    expect(refused).toMatchObject({ ok: false, step: 'store' });
    expect(readFileSync(file, 'utf8')).toBe(original);
    expect(store.entries.get(ACCOUNT)).toBe('fake-other-secret');
    const replaced = await importRunnerState({ file, secretStore: store, account: ACCOUNT, replaceExisting: true });
    expect(replaced.ok).toBe(true);
    expect(store.entries.get(ACCOUNT) === secret).toBe(true);
  });

  it('refuses a file of another tenant', async () => {
    const r = await importRunnerState({ file, secretStore: new MemoryStore(), account: ACCOUNT, expectedTenantId: 'ten_other' });
    expect(r).toEqual({ ok: false, step: 'tenant', reason: 'The state file belongs to tenant ten_9, not the expected ten_other; it was left as it is.' });
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('reads only a file of this user that others cannot change, and leaves any other as it is', async () => {
    const store = new MemoryStore();
    chmodSync(file, 0o620);
    const writable = await importRunnerState({ file, secretStore: store, account: ACCOUNT });
    expect(writable).toMatchObject({ ok: false, step: 'read', reason: expect.stringMatching(/can be changed by other users \(mode 0620\)/) });
    chmodSync(file, 0o602);
    expect(await importRunnerState({ file, secretStore: store, account: ACCOUNT })).toMatchObject({ ok: false, step: 'read' });
    chmodSync(file, 0o600);
    const theirs = await importRunnerState({ file, secretStore: store, account: ACCOUNT, ownerUid: (process.getuid?.() ?? 0) + 1 });
    expect(theirs).toMatchObject({ ok: false, step: 'read', reason: expect.stringMatching(/belongs to another user/) });
    expect(await store.get(ACCOUNT)).toBeNull();
    expect(readFileSync(file, 'utf8')).toBe(original);
  });

  it('refuses a symlink and an unreadable or malformed file, saying why', async () => {
    const link = join(dir, 'link.json');
    symlinkSync(file, link);
    expect(await importRunnerState({ file: link, secretStore: new MemoryStore(), account: ACCOUNT })).toMatchObject({ ok: false, step: 'read' });
    expect(await importRunnerState({ file: join(dir, 'missing.json'), secretStore: new MemoryStore(), account: ACCOUNT })).toMatchObject({
      ok: false,
      step: 'read',
      reason: expect.stringContaining('(ENOENT'),
    });
    writeFileSync(file, '{"runner_id": 1}');
    expect(await importRunnerState({ file, secretStore: new MemoryStore(), account: ACCOUNT })).toMatchObject({ ok: false, step: 'parse' });
  });

  it('notes a file name made for another control plane, without failing', async () => {
    const r = await importRunnerState({ file, secretStore: new MemoryStore(), account: ACCOUNT, controlPlaneUrl: 'https://elsewhere.example' });
    expect(r.ok && r.imported.notes.some((n) => n.includes('another control plane URL'))).toBe(true);
  });
});
