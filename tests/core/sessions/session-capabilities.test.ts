import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Profile, ProfileSummary } from '../../../shared/profiles';
import type { RunnerSnapshot } from '../../../shared/runner';
import type { RunnerStatus } from '../../../shared/status';
import { createDispatcher } from '../../../main/core/base/dispatch';
import { createHandlers, type CommandServices } from '../../../main/core/commands';
import { SechroomSession } from '../../../main/core/planes/sechroom/sechroom-session';
import type { SechroomSessionDeps } from '../../../main/core/planes/sechroom/sechroom-session-deps';
import { RunnerStateStore } from '../../../main/core/runner/runner-state-store';
import type { RunnerSession } from '../../../main/core/sessions/session';
import { SessionRegistry } from '../../../main/core/sessions/session-registry';
import type { ProfileSettings } from '../../../main/core/sessions/profile-settings';
import type { ProfileStore } from '../../../main/core/sessions/profile-store';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

// A plane's session implements the core of RunnerSession and declares the rest as
// capabilities: a session with the core alone works with the registry, and the commands
// answer one 'unsupported' for what its plane lacks.

/** A session with the core members only: no pairing, no state import, no leftovers. */
function coreOnlySession(profile: Profile): RunnerSession & { calls: string[] } {
  const calls: string[] = [];
  let name = profile.name;
  let paused = false;
  const status = (): RunnerStatus => (paused ? { state: 'paused', reason: 'Paused.', until: null } : { state: 'idle', reason: 'Waiting for work.' });
  const session = {
    calls,
    capabilities: {},
    get profile(): Profile {
      return { ...profile, name };
    },
    identity: null,
    get paused() {
      return paused;
    },
    activeCount: 0,
    undelivered: 0,
    start: async () => void calls.push('start'),
    stop: async () => void calls.push('stop'),
    status,
    snapshot: () => ({ profile: profile.id, status: status() }) as RunnerSnapshot,
    summary: (): ProfileSummary => ({ ...session.profile, controlPlaneUrl: '', status: status(), runnerId: null, paused, active: 0 }),
    pause: async () => void (paused = true),
    resume: async () => void (paused = false),
    rename: (next: string) => void (name = next),
    reconfigure: () => undefined,
    refreshStatus: () => undefined,
    runtimesChanged: () => undefined,
    ownsTurn: () => false,
    cancelTurn: () => false,
    cancelAll: () => 0,
    whenIdle: async () => undefined,
    holdClaims: () => void calls.push('hold'),
    releaseClaims: () => void calls.push('release'),
    setStopping: () => undefined,
    drain: async () => ({ canceled: 0 }),
    runOne: async () => ({ claimed: false, error: null }),
    onHeartbeat: () => () => undefined,
  };
  return session;
}

function registryOf(sessions: Record<string, RunnerSession>, profiles: Profile[]) {
  let stored = [...profiles];
  const store = {
    all: () => stored,
    save: async (list: readonly Profile[]) => void (stored = [...list]),
    removeFiles: async () => undefined,
  } as unknown as ProfileStore;
  const settings = { get: () => ({ runnerName: 'host', controlPlaneUrl: 'http://127.0.0.1:1' }) } as unknown as ProfileSettings;
  const logs = testLogging();
  const registry = new SessionRegistry({
    store,
    log: logs.log,
    emit: () => undefined,
    open: async (profile) => ({ session: sessions[profile.id]!, settings, close: () => undefined }),
    sweepStale: async () => 0,
  });
  const invoke = createDispatcher(createHandlers({ profiles: registry, operator: { workLayer: {} } } as unknown as CommandServices), logs.log);
  return { registry, invoke, logs };
}

let tmp: string | null = null;
afterEach(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
  tmp = null;
});

describe('session capabilities', () => {
  it('a session with only the core members works with the registry: start, list, pause, rename, quit, remove', async () => {
    const main: Profile = { id: 'default', name: 'Main', connector: 'sechroom' };
    const lab: Profile = { id: 'lab', name: 'Lab', connector: 'sechroom' };
    const sessions = { default: coreOnlySession(main), lab: coreOnlySession(lab) };
    const { registry, invoke } = registryOf(sessions, [main, lab]);
    await registry.openAll();
    await registry.start();
    expect(sessions.default.calls).toEqual(['start']);
    expect(registry.list().map((p) => p.id)).toEqual(['default', 'lab']);

    expect((await registry.pauseAll(null, null)).every((p) => p.paused)).toBe(true);
    expect(await invoke('runner:resume', { profile: 'lab' })).toMatchObject({ ok: true, value: { status: { state: 'idle' } } });
    expect(await registry.rename('lab', 'Bench')).toMatchObject({ id: 'lab', name: 'Bench' });
    registry.work.holdClaims();
    registry.work.releaseClaims();
    expect(registry.work.cancelAll('quit')).toBe(0);
    await registry.work.whenIdle();
    expect(sessions.lab.calls).toEqual(['start', 'hold', 'release']);

    await registry.remove('lab');
    expect(sessions.lab.calls.at(-1)).toBe('stop');
    expect(registry.list().map((p) => p.id)).toEqual(['default']);
    await registry.stop();
  });

  it('a command for a capability the plane lacks answers one unsupported, naming the plane', async () => {
    const lab: Profile = { id: 'lab', name: 'Lab', connector: 'rost' };
    const { registry, invoke, logs } = registryOf({ lab: coreOnlySession(lab) }, [lab]);
    await registry.openAll();
    const pairing = { ok: false, error: { code: 'unsupported', message: 'A Rost profile has nothing to pair or sign in to.' } };
    expect(await invoke('pairing:start', { profile: 'lab' })).toEqual(pairing);
    expect(await invoke('pairing:start-with-code', { profile: 'lab', code: 'ABCD-EFGH' })).toEqual(pairing);
    expect(await invoke('pairing:cancel', { profile: 'lab' })).toEqual(pairing);
    expect(await invoke('runner:unpair', { profile: 'lab', force: false })).toEqual(pairing);
    expect(await invoke('runner:import', { profile: 'lab', file: '/tmp/state.json' })).toEqual({
      ok: false,
      error: { code: 'unsupported', message: 'A Rost profile has no runner state file to import.' },
    });
    // Refusals, not faults: nothing was logged as a failed command.
    expect(logs.entries.filter((e) => e.level === 'error')).toEqual([]);
  });

  it('a Sechroom profile declares its sign-in as pairing and says what to do instead of importing a state file', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'capabilities-'));
    const profile: Profile = { id: 'sech', name: 'Sech', connector: 'sechroom' };
    const logs = testLogging();
    const session = new SechroomSession({
      profile,
      dir: tmp,
      clock: new FakeClock(0),
      log: logs.log,
      state: new RunnerStateStore(path.join(tmp, 'runner-state.json')),
      emit: () => undefined,
      onChange: () => undefined,
      secrets: null,
      secretStorage: { backend: 'none', warning: null, problem: null },
      registerSecret: () => undefined,
      knownSecrets: () => [],
      tokenScope: () => ({ token: null, credential: { source: 'none', note: '' } }),
      plumbing: () => {
        throw new Error('not opened in this test');
      },
      autoClaim: false,
    } as unknown as SechroomSessionDeps);
    expect(Object.keys(session.capabilities)).toEqual(['pairing']);
    const { registry, invoke } = registryOf({ sech: session }, [profile]);
    await registry.openAll();
    expect(await invoke('runner:import', { profile: 'sech', file: '/tmp/state.json' })).toEqual({
      ok: false,
      error: { code: 'unsupported', message: 'A Sechroom profile has no runner state file to import; sign in or set SECHROOM_TOKEN.' },
    });
    // Its pairing is there: without settings it says what to set first, as it always did.
    expect(await invoke('pairing:start', { profile: 'sech' })).toMatchObject({ ok: false, error: { code: 'not_configured' } });
  });
});
