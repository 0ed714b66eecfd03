import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedStateFileName } from '../../../../main/core/planes/rost/import/runner-state-file';
import { importStateFile } from '../../../../main/core/planes/rost/state-import';
import { RunnerStateStore } from '../../../../main/core/runner/runner-state-store';
import type { SecretStore } from '../../../../main/core/secrets/secret-store';

class MemorySecrets implements SecretStore {
  readonly backend = 'keychain' as const;
  entries = new Map<string, string>();
  async get(account: string) {
    return this.entries.get(account) ?? null;
  }
  async set(account: string, secret: string) {
    this.entries.set(account, secret);
  }
  async delete(account: string) {
    return this.entries.delete(account);
  }
}

const URL_ = 'https://rost.example';
const SECRET = 'fake-runner-secret-0123456789abcdef';
const NOW = Date.parse('2026-12-07T10:00:00.000Z');
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

async function setUp(doc: Record<string, unknown>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rt-state-import-'));
  dirs.push(dir);
  const file = path.join(dir, seedStateFileName(URL_));
  writeFileSync(file, `${JSON.stringify({ runner_id: 'run_1', runner_secret: SECRET, ...doc })}\n`, { mode: 0o600 });
  const state = new RunnerStateStore(path.join(dir, 'state.json'));
  await state.load();
  await state.update((s) => ({ ...s, runtimeSessions: { kept: { claude_session_id: 'mine' } } }));
  const secrets = new MemorySecrets();
  const run = (expectedTenantId: string | null = null) =>
    importStateFile({ file, secrets, account: (url) => `runner:${url}`, controlPlaneUrl: URL_, expectedTenantId, runnerName: 'this-box', state, now: NOW });
  return { file, state, secrets, run };
}

describe('importStateFile: a `rost runner serve` state file carried over', () => {
  it('takes the identity and resume sessions into our state and the secret into the store', async () => {
    const t = await setUp({ tenant_id: 'ten_9', name: 'old-box', runtime_sessions: { theirs: { claude_session_id: 'cs_1' } } });
    const r = await t.run('ten_9');
    const identity = { runnerId: 'run_1', tenantId: 'ten_9', name: 'old-box', controlPlaneUrl: URL_, pairedAt: '2026-12-07T10:00:00.000Z' };
    expect(r).toEqual({ ok: true, identity, notes: [] });
    expect(t.state.get().identity).toEqual(identity);
    expect(t.state.get().runtimeSessions).toEqual({ kept: { claude_session_id: 'mine' }, theirs: { claude_session_id: 'cs_1' } });
    expect(await t.secrets.get(`runner:${URL_}`)).toBe(SECRET);
    expect(readFileSync(t.file, 'utf8')).not.toContain(SECRET);
  });

  it('names the runner with our setting and no tenant when the file has neither', async () => {
    const t = await setUp({});
    const r = await t.run();
    expect(r).toMatchObject({ ok: true, identity: { runnerId: 'run_1', tenantId: null, name: 'this-box' } });
  });

  it('says at which step an import failed and leaves our state as it was', async () => {
    const t = await setUp({ tenant_id: 'ten_other' });
    const r = await t.run('ten_9');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toMatch(/^Import failed at tenant: The state file belongs to tenant ten_other, not the expected ten_9/);
    expect(t.state.get().identity).toBeNull();
    expect(t.secrets.entries.size).toBe(0);
  });
});
