import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PairingClaimByCode, PairingStartRequest } from '../../../../shared/protocol';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import type { PairingPoll, RunnerConnector, RunnerCredentials } from '../../../../main/core/planes/rost/connector';
import { IdentityKeeper } from '../../../../main/core/planes/rost/identity-keeper';
import type { IdentityConfig, IdentityKeeperDeps, RunnerSecretStore } from '../../../../main/core/planes/rost/identity-keeper-deps';
import { RunnerStateStore } from '../../../../main/core/runner/runner-state-store';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

const URL_ = 'https://forge.example';
const SECRET = 'runner-secret-0123456789abcdef';

class MemorySecrets implements RunnerSecretStore {
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

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const approved = (patch: Partial<{ tenant_id: string; name: string }> = {}): PairingPoll => ({
  kind: 'approved',
  credentials: { runner_id: 'run_1', runner_secret: SECRET, ...patch },
});

async function harness(
  opts: { secrets?: MemorySecrets | null; config?: Partial<IdentityConfig>; operatorStart?: IdentityKeeperDeps['operatorPairingStart'] } = {},
) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rt-identity-'));
  dirs.push(dir);
  const clock = new FakeClock(Date.parse('2026-12-07T10:00:00.000Z'));
  const logging = testLogging();
  const state = new RunnerStateStore(path.join(dir, 'state.json'));
  await state.load();
  const secrets = opts.secrets === undefined ? new MemorySecrets() : opts.secrets;
  let config: IdentityConfig = { controlPlaneUrl: URL_, runnerName: 'box', expectedTenantId: null, ...opts.config };
  const polls: PairingPoll[] = [];
  const byCode: PairingClaimByCode[] = [];
  const starts: PairingStartRequest[] = [];
  const unpairs: RunnerCredentials[] = [];
  let unpairError: unknown = null;
  const events: string[] = [];
  const registered: string[] = [];
  let duringUnpair: () => Promise<void> = async () => undefined;
  const connector = {
    origin: URL_,
    startPairing: async (r: PairingStartRequest) => {
      starts.push(r);
      return { pairing_id: 'p1', user_code: 'BCDF-GHJK', verification_uri: `${URL_}/device`, expires_in: 600, interval: 1 };
    },
    pollPairing: async () => polls.shift() ?? { kind: 'pending' },
    pollPairingByCode: async (claim: PairingClaimByCode) => {
      byCode.push(claim);
      return polls.shift() ?? { kind: 'pending' };
    },
    unpair: async (c: RunnerCredentials) => {
      unpairs.push(c);
      await duringUnpair();
      if (unpairError) throw unpairError;
    },
  } as unknown as RunnerConnector;
  const deps: IdentityKeeperDeps = {
    clock,
    log: logging.log,
    random: () => 0.5,
    config: () => config,
    secrets,
    secretStorage: { backend: secrets ? 'keychain' : 'none', warning: null, problem: secrets ? null : 'No keychain on this machine.' },
    account: (url) => `runner:${url}`,
    state,
    connectorFor: () => connector,
    platform: { platform: 'linux', arch: 'x64', release: '6', hostname: 'host-1', versions: { node: '22', electron: null, chrome: null } },
    appVersion: '0.1.0',
    registerSecret: (s) => void registered.push(s),
    ...(opts.operatorStart ? { operatorPairingStart: opts.operatorStart } : {}),
    onConnected: () => void events.push('connected'),
    onForgotten: () => void events.push('forgotten'),
    onChange: () => void events.push('change'),
  };
  const k = new IdentityKeeper(deps);
  return {
    deps,
    keeper: k,
    clock,
    state,
    secrets,
    polls,
    byCode,
    starts,
    unpairs,
    events,
    registered,
    failUnpair: (e: unknown) => (unpairError = e),
    onUnpair: (fn: () => Promise<void>) => (duringUnpair = fn),
    setConfig: (patch: Partial<IdentityConfig>) => (config = { ...config, ...patch }),
    logs: () => logging.entries.map((e) => e.msg),
    /** Pairs with the device code and waits for the approval to be stored. */
    pair: async (answer: PairingPoll = approved()) => {
      polls.push(answer);
      await k.startPairing();
      await clock.advanceAsync(1_000);
      await settled(k);
    },
  };
}

/** The approval is stored (files written) once the flow leaves `waiting`. */
const settled = (k: IdentityKeeper) => vi.waitUntil(() => k.pairingView?.phase !== 'waiting' && k.pairingView?.phase !== 'starting');

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (error) {
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  }
  throw new Error('expected a refusal');
};

describe('IdentityKeeper: who a profile is to its control plane', () => {
  it('pairs with the device code, keeps the secret in the store and the identity in the state, and connects', async () => {
    const h = await harness();
    const shown = await h.keeper.startPairing();
    expect(shown).toMatchObject({ phase: 'waiting', userCode: 'BCDF-GHJK' });
    expect(h.starts).toEqual([{ name: 'box', platform: 'linux', runner_version: '0.1.0', hostname: 'host-1' }]);
    h.polls.push(approved({ tenant_id: 'ten_1' }));
    await h.clock.advanceAsync(1_000);
    await settled(h.keeper);
    expect(h.keeper.pairingView).toEqual({ phase: 'approved', runnerName: 'box' });
    expect(await h.secrets?.get(`runner:${URL_}`)).toBe(SECRET);
    expect(h.state.get().identity).toEqual({
      runnerId: 'run_1',
      tenantId: 'ten_1',
      tenantName: null,
      name: 'box',
      controlPlaneUrl: URL_,
      pairedAt: '2026-12-07T10:00:01.000Z',
    });
    expect(h.keeper.current?.credentials).toEqual({ runnerId: 'run_1', secret: SECRET });
    expect(h.events).toContain('connected');
    expect(h.registered).toContain(SECRET);
    expect(h.keeper.view()).toEqual({
      runnerId: 'run_1',
      tenantId: 'ten_1',
      tenantName: null,
      name: 'box',
      controlPlane: URL_,
      pairedAt: '2026-12-07T10:00:01.000Z',
    });
    expect(JSON.stringify(h.state.get())).not.toContain(SECRET);
  });

  it("takes the control plane's name, and the expected tenant for an answer without one", async () => {
    const h = await harness({ config: { expectedTenantId: 'ten_9' } });
    await h.pair(approved({ name: 'named-by-plane' }));
    expect(h.state.get().identity).toMatchObject({ tenantId: 'ten_9', name: 'named-by-plane' });
  });

  it('stores nothing for a pairing of another tenant, and says so', async () => {
    const h = await harness({ config: { expectedTenantId: 'ten_9' } });
    await h.pair(approved({ tenant_id: 'ten_other' }));
    expect(h.keeper.pairingView).toMatchObject({ phase: 'failed', message: expect.stringContaining('another tenant (ten_other), not ten_9') });
    expect(h.state.get().identity).toBeNull();
    expect(h.secrets?.entries.size).toBe(0);
    expect(h.keeper.current).toBeNull();
  });

  it('claims a pasted code of our shape however it was typed, and sends a code of another shape as typed', async () => {
    const h = await harness();
    await h.keeper.startPairing({ userCode: ' bcdf ghjk ' });
    await h.clock.advanceAsync(2_000);
    expect(h.byCode[0]).toMatchObject({ user_code: 'BCDF-GHJK', name: 'box', platform: 'linux' });
    h.keeper.cancelPairing();
    const other = await harness();
    await other.keeper.startPairing({ userCode: ' abc123 ' });
    await other.clock.advanceAsync(2_000);
    expect(other.byCode[0]?.user_code).toBe('abc123');
    other.keeper.cancelPairing();
  });

  it('refuses a code with spaces inside, an empty or overlong one', async () => {
    const h = await harness();
    for (const code of ['abc 123', '   ', 'x'.repeat(65)]) {
      expect(await failure(h.keeper.startPairing({ userCode: code }))).toMatchObject({ code: 'invalid_code' });
    }
    expect(h.starts).toEqual([]);
  });

  it('refuses to pair a paired profile, or one with no place for the secret', async () => {
    const h = await harness();
    await h.pair();
    expect(await failure(h.keeper.startPairing())).toMatchObject({ code: 'already_paired' });
    expect(await failure(h.keeper.importState('/nowhere'))).toMatchObject({ code: 'already_paired' });
    const none = await harness({ secrets: null });
    expect(await failure(none.keeper.startPairing())).toEqual({ code: 'no_secret_store', message: 'No keychain on this machine.' });
  });

  it("uses the signed-in operator's start when there is one, and the device code when it fails", async () => {
    const started = await harness({ operatorStart: async () => ({ user_code: 'BCDF-GHJK' }) });
    await started.keeper.startPairing();
    expect(started.starts).toEqual([]);
    await started.clock.advanceAsync(2_000);
    expect(started.byCode).toHaveLength(1);
    started.keeper.cancelPairing();

    const failing = await harness({
      operatorStart: async () => {
        throw new Error('forge down');
      },
    });
    await failing.keeper.startPairing();
    expect(failing.starts).toHaveLength(1);
    expect(failing.logs()).toContain('the signed-in start of pairing failed; using the device-code start');
    failing.keeper.cancelPairing();
  });

  it('restores a stored identity with its secret at start, and names the problem when the secret is gone', async () => {
    const h = await harness();
    await h.pair();
    const again = new IdentityKeeper(h.deps);
    await again.restore();
    expect(again.current?.credentials.runnerId).toBe('run_1');
    expect(again.problem).toBeNull();
    await h.secrets?.delete(`runner:${URL_}`);
    const lost = new IdentityKeeper(h.deps);
    await lost.restore();
    expect(lost.current).toBeNull();
    expect(lost.problem).toBe('The runner secret is missing from the secret store. Unpair and pair again.');
  });

  it('unpairs at the control plane, then forgets the secret and the identity', async () => {
    const h = await harness();
    await h.pair();
    await h.keeper.unpair(false);
    expect(h.unpairs).toEqual([{ runnerId: 'run_1', secret: SECRET }]);
    expect(h.state.get().identity).toBeNull();
    expect(h.secrets?.entries.size).toBe(0);
    expect(h.keeper.current).toBeNull();
    expect(h.events).toContain('forgotten');
    expect(await failure(h.keeper.unpair(false))).toMatchObject({ code: 'not_paired' });
  });

  it('stays paired when the control plane cannot be reached, unless told to forget anyway', async () => {
    const h = await harness();
    await h.pair();
    h.failUnpair(new ConnectorError('network', 'connection refused'));
    expect(await failure(h.keeper.unpair(false))).toMatchObject({ code: 'unpair_failed' });
    expect(h.state.get().identity).not.toBeNull();
    expect(h.keeper.current).not.toBeNull();
    await h.keeper.unpair(true);
    expect(h.state.get().identity).toBeNull();
  });

  it('forgets an identity the control plane already revoked when unpairing', async () => {
    const h = await harness();
    await h.pair();
    h.failUnpair(new ConnectorError('unauthorized', 'revoked', 401));
    await h.keeper.unpair(false);
    expect(h.state.get().identity).toBeNull();
  });

  it('forgets the identity and says revoked on a 401, but not for the 401s its own unpair causes', async () => {
    const h = await harness();
    await h.pair();
    h.onUnpair(() => h.keeper.markRevoked());
    await h.keeper.unpair(false);
    expect(h.keeper.revoked).toBe(false);

    const r = await harness();
    await r.pair();
    await r.keeper.markRevoked();
    expect(r.keeper.revoked).toBe(true);
    expect(r.state.get().identity).toBeNull();
    expect(r.secrets?.entries.size).toBe(0);
    expect(r.logs()).toContain('the control plane revoked this runner; the secret was removed');
    // A new pairing clears the flag.
    await r.keeper.startPairing();
    expect(r.keeper.revoked).toBe(false);
    r.keeper.cancelPairing();
  });

  it('renames the stored identity when the runner-name setting changes while paired', async () => {
    const h = await harness();
    await h.pair();
    await h.keeper.restore();
    expect(await h.keeper.renameIfChanged()).toBe(false);
    h.setConfig({ runnerName: '  lab-box ' });
    expect(await h.keeper.renameIfChanged()).toBe(true);
    expect(h.state.get().identity?.name).toBe('lab-box');
    expect(await h.keeper.renameIfChanged()).toBe(false);
    // A blank name is no rename (nothing is tried, so nothing fails).
    h.setConfig({ runnerName: '   ' });
    expect(await h.keeper.renameIfChanged()).toBe(false);
    expect(h.state.get().identity?.name).toBe('lab-box');
    expect(h.logs()).not.toContain('could not store the new runner name');
  });
});
