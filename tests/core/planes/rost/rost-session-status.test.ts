import { describe, expect, it } from 'vitest';
import { defaultSettings, type Settings } from '../../../../shared/settings';
import type { RostSessionDeps, SessionParts } from '../../../../main/core/planes/rost/rost-session-deps';
import { sessionHeartbeatBody, sessionSnapshot, sessionStatus, type SessionState } from '../../../../main/core/planes/rost/rost-session-status';
import type { RunnerIdentity } from '../../../../main/core/runner/runner-state-store';

const SECRET = 'secret-token-abcdef';
const identity: RunnerIdentity = {
  runnerId: 'r1',
  tenantId: 't1',
  name: 'stored-name',
  controlPlaneUrl: 'https://forge.example',
  pairedAt: '2026-12-01T00:00:00.000Z',
};

interface Facts {
  connected?: boolean;
  current?: boolean;
  problem?: string | null;
  offline?: { retryAt: number; message: string } | null;
  paused?: { until: number | null } | null;
  notReady?: string | null;
  settings?: Partial<Settings>;
  claimsDeferred?: string | null;
  accountState?: string;
}

/** The session's parts as the status reads them, with the facts given. */
function session(f: Facts = {}) {
  const parts = {
    identityKeeper: {
      current: f.current === false ? null : { connector: {}, credentials: { runnerId: 'r1', secret: SECRET } },
      pairingView: null,
      revoked: false,
      problem: f.problem ?? null,
      view: () => ({ runnerId: 'r1' }),
    },
    heartbeat: { offline: f.offline ?? null, connected: f.connected ?? true, view: () => ({ nextAt: null, lastOkAt: null }) },
    answers: { current: () => null },
    pauseState: { current: f.paused ?? null, view: () => (f.paused ? { until: null } : null) },
    runtimes: { notReady: () => f.notReady ?? null, view: () => null },
    storage: { reason: null },
  } as unknown as SessionParts;
  const capabilities = { claude: { installed: true, path: '/bin/claude', version: '1.0.0' }, codex: { installed: false } };
  const deps = {
    profile: { id: 'p1' },
    settings: () => ({ ...defaultSettings('box'), maxSessions: 3, ...f.settings }),
    knownSecrets: () => [SECRET],
    claimsDeferred: () => f.claimsDeferred ?? null,
    secretStorage: { backend: 'keychain', warning: null, problem: null },
    accountState: () => f.accountState ?? 'ok',
    appVersion: '0.1.0',
    capabilities: { get: async () => capabilities },
    breaker: { state: {} },
    platform: { platform: 'linux', release: '6.1', arch: 'x64' },
    cpuCount: 4,
    history: { latest: () => ({ at: 0, cpuPercent: 12, memTotalBytes: 100, memFreeBytes: 40, rssBytes: 7 }) },
  } as unknown as RostSessionDeps;
  return { parts, deps };
}

const state = (patch: Partial<SessionState> = {}): SessionState => ({
  active: 0,
  undelivered: 0,
  draining: false,
  stopping: null,
  paused: false,
  identity,
  ...patch,
});

describe("the Rost session's status, snapshot and heartbeat body", () => {
  it('is paired only with a stored identity whose secret connected', () => {
    const { deps, parts } = session();
    expect(sessionStatus(deps, parts, state()).state).toBe('idle');
    expect(sessionStatus(deps, parts, state({ identity: null })).state).toBe('unpaired');
    const noSecret = session({ current: false, problem: 'The runner secret is missing' });
    expect(sessionStatus(noSecret.deps, noSecret.parts, state())).toEqual({ state: 'error', reason: 'The runner secret is missing' });
    const notConnected = session({ current: false });
    expect(sessionStatus(notConnected.deps, notConnected.parts, state()).state).toBe('unpaired');
  });

  it("redacts the control plane's words in the reason", () => {
    const { deps, parts } = session({ offline: { retryAt: 0, message: `The control plane refused token ${SECRET}.` } });
    const status = sessionStatus(deps, parts, state());
    expect(status.state).toBe('offline');
    expect(status.reason).not.toContain(SECRET);
    expect(status.reason).toContain('[REDACTED]');
  });

  it('says why no work is taken: heartbeat-only, no ready runtime, a usage deferral, counted against the profile cap', () => {
    const only = session({ settings: { runWork: false } });
    expect(sessionStatus(only.deps, only.parts, state()).reason).toMatch(/^Heartbeat only/);
    const held = session({ notReady: 'Codex: not signed in' });
    expect(sessionStatus(held.deps, held.parts, state())).toMatchObject({ state: 'idle', held: 'Codex: not signed in' });
    const deferred = session({ claimsDeferred: 'Claims wait: 2% of the account is left.' });
    expect(sessionStatus(deferred.deps, deferred.parts, state()).reason).toBe('Claims wait: 2% of the account is left.');
    const working = session();
    expect(sessionStatus(working.deps, working.parts, state({ active: 2 }))).toMatchObject({ state: 'working', active: 2, limit: 3 });
  });

  it('shows the profile, counts and the account alias (default when blank) in the snapshot', () => {
    const { deps, parts } = session({ settings: { modelAccountAlias: '   ' }, accountState: '' });
    const snap = sessionSnapshot(deps, parts, state({ active: 1, undelivered: 2 }));
    expect(snap).toMatchObject({
      profile: 'p1',
      sessions: { active: 1, max: 3 },
      results: { undelivered: 2 },
      modelAccount: { alias: 'default', state: 'unknown' },
      secretStorage: { backend: 'keychain' },
      identity: { runnerId: 'r1' },
    });
  });

  it("sends the stored name, says paused while quitting after the turns, and carries the machine's capacity", async () => {
    const { deps } = session({ settings: { runnerName: 'setting-name' } });
    const body = await sessionHeartbeatBody(deps, () => state({ stopping: { deadline: 0, mode: 'after-turns' }, active: 1 }));
    expect(body).toMatchObject({
      name: 'stored-name',
      runner_version: '0.1.0',
      paused: true,
      capabilities: { claude: { installed: true, path: '/bin/claude', version: '1.0.0' }, codex: { installed: false } },
      telemetry: { cpu: { count: 4, load_percent: 12 }, active_sessions: 1, max_sessions: 3, runtimes: ['claude'] },
    });
    const unpaired = await sessionHeartbeatBody(deps, () => state({ identity: null }));
    expect(unpaired).toMatchObject({ name: 'setting-name', paused: false });
    const paused = await sessionHeartbeatBody(deps, () => state({ paused: true }));
    expect(paused.paused).toBe(true);
  });
});
