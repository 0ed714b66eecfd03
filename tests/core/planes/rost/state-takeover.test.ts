import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PairingState } from '../../../../shared/runner';
import { importStateFile } from '../../../../main/core/planes/rost/state-import';
import { StateTakeover } from '../../../../main/core/planes/rost/state-takeover';
import { IdentityKeeper } from '../../../../main/core/planes/rost/identity-keeper';
import type { RunnerConnector } from '../../../../main/core/planes/rost/connector';
import type { PlatformInfo } from '../../../../main/core/base/ports';
import { RunnerStateStore } from '../../../../main/core/runner/runner-state-store';
import type { SecretStore } from '../../../../main/core/secrets/secret-store';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

/** A keychain that does not answer while `locked` (as one over D-Bus that is not up yet). */
class LockedKeychain implements SecretStore {
  readonly backend = 'keychain' as const;
  entries = new Map<string, string>();
  locked = true;
  async get(account: string) {
    return this.entries.get(account) ?? null;
  }
  async set(account: string, secret: string) {
    if (this.locked) throw new Error('the keychain did not answer (org.freedesktop.secrets)');
    this.entries.set(account, secret);
  }
  async delete(account: string) {
    return this.entries.delete(account);
  }
}

const URL_ = 'https://rost.example';
let dir: string;
let file: string;
let secret: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rt-takeover-'));
  secret = `fake-runner-secret-${randomBytes(16).toString('hex')}`;
  file = join(dir, 'runner-state.json');
  writeFileSync(file, `${JSON.stringify({ runner_id: 'run_123', runner_secret: secret, tenant_id: 'ten_9', name: 'old-box' })}\n`, { mode: 0o600 });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function setup(keychain: SecretStore) {
  const clock = new FakeClock();
  const t0 = clock.now();
  const states: (PairingState | null)[] = [];
  const imported: string[] = [];
  const state = new RunnerStateStore(join(dir, 'state.json'));
  await state.load();
  const takeover = new StateTakeover({
    clock,
    log: testLogging().log,
    random: () => 0.5,
    onState: (s) => states.push(s),
    onImported: async (result) => {
      imported.push(result.identity.runnerId);
    },
  });
  const attempt = () =>
    importStateFile({
      file,
      secrets: keychain,
      account: () => 'runner:https://rost.example',
      controlPlaneUrl: URL_,
      expectedTenantId: null,
      runnerName: 'box',
      state,
      now: clock.now(),
    });
  return { clock, t0, states, imported, takeover, attempt, state };
}

describe('taking over a state file while the secret store does not answer', () => {
  it('answers the first failure at once, tries again with backoff, and takes the file over once the store answers', async () => {
    const keychain = new LockedKeychain();
    const { clock, t0, states, imported, takeover, attempt, state } = await setup(keychain);
    const first = await takeover.start(attempt);
    expect(first).toMatchObject({ ok: false, transient: true, reason: expect.stringContaining('the keychain did not answer') });
    expect(JSON.stringify(first)).not.toContain(secret);
    await clock.advanceAsync(0);
    expect(states.at(-1)).toEqual({
      phase: 'retrying',
      what: 'import',
      lastError: expect.stringContaining('the keychain did not answer'),
      nextAttemptAt: new Date(t0 + 1500).toISOString(),
      attempts: 1,
    });
    // Each try reads and writes real files: wait for its outcome, not for time.
    await clock.advanceAsync(1500, 500);
    await vi.waitFor(() => expect(states.at(-1)).toMatchObject({ phase: 'retrying', attempts: 2, nextAttemptAt: new Date(t0 + 4000).toISOString() }));
    expect(imported).toEqual([]);

    keychain.locked = false;
    await clock.advanceAsync(2500, 500);
    await vi.waitFor(() => expect(imported).toEqual(['run_123']));
    expect(states.at(-1)).toBeNull();
    expect(state.get().identity).toMatchObject({ runnerId: 'run_123' });
    expect(readFileSync(file, 'utf8')).not.toContain(secret);
    expect(keychain.entries.get('runner:https://rost.example')).toBe(secret);
  });

  it('Retry now makes the waiting try at once', async () => {
    const keychain = new LockedKeychain();
    const { clock, imported, takeover, attempt, states } = await setup(keychain);
    await takeover.start(attempt);
    await clock.advanceAsync(0);
    expect(takeover.waiting).toBe(true);
    keychain.locked = false;
    expect(await takeover.retryNow()).toBe(true);
    expect(imported).toEqual(['run_123']);
    expect(states.at(-1)).toBeNull();
    expect(takeover.waiting).toBe(false);
  });

  it('does not retry what a retry cannot fix (another secret is stored already), and a cancel ends the tries', async () => {
    const taken = new LockedKeychain();
    taken.locked = false;
    taken.entries.set('runner:https://rost.example', 'another-runner-secret-0123456789');
    const refused = await setup(taken);
    expect(await refused.takeover.start(refused.attempt)).toMatchObject({ ok: false, reason: expect.stringContaining('already stored') });
    expect(refused.takeover.waiting).toBe(false);

    const locked = await setup(new LockedKeychain());
    await locked.takeover.start(locked.attempt);
    await locked.clock.advanceAsync(0);
    expect(locked.takeover.cancel()).toBe(true);
    expect(locked.states.at(-1)).toEqual({ phase: 'canceled' });
    await locked.clock.advanceAsync(120_000, 5000);
    expect(locked.imported).toEqual([]);
    expect(locked.states.filter((s) => s?.phase === 'retrying')).toHaveLength(1);
  });
});

describe('the identity keeper takes a state file over through the takeover', () => {
  it('a takeover the secret store did not answer says retrying in the pairing state, and Retry now (pairing:retry-now) finishes it', async () => {
    const keychain = new LockedKeychain();
    const clock = new FakeClock();
    const state = new RunnerStateStore(join(dir, 'state.json'));
    await state.load();
    const connected: string[] = [];
    const keeper = new IdentityKeeper({
      clock,
      log: testLogging().log,
      random: () => 0.5,
      config: () => ({ controlPlaneUrl: URL_, runnerName: 'box', expectedTenantId: null }),
      secrets: keychain,
      secretStorage: { backend: 'keychain', warning: null, problem: null },
      account: (url) => `runner:${url}`,
      state,
      connectorFor: (url) => ({ url }) as unknown as RunnerConnector,
      platform: { platform: 'linux', hostname: 'box' } as PlatformInfo,
      appVersion: '0.0.0-test',
      registerSecret: () => undefined,
      onConnected: () => connected.push('connected'),
      onForgotten: () => undefined,
      onChange: () => undefined,
    });
    await expect(keeper.importState(file)).rejects.toMatchObject({ code: 'import_retrying', message: expect.stringContaining('Retry now') });
    await clock.advanceAsync(0);
    expect(keeper.pairingView).toMatchObject({ phase: 'retrying', what: 'import', attempts: 1 });

    keychain.locked = false;
    await keeper.startPairing();
    expect(keeper.identity).toMatchObject({ runnerId: 'run_123', tenantId: 'ten_9' });
    expect(keeper.pairingView).toBeNull();
    expect(connected).toEqual(['connected']);
  });
});
