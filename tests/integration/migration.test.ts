import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostEvent, SettingsView } from '../../shared/contract';
import type { ProfileSummary } from '../../shared/profiles';
import type { RunnerSnapshot } from '../../shared/runner';
import type { TurnsPage } from '../../shared/turns';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { bootstrapCore, type Core } from '../../main/core/bootstrap';

const FIXTURE = fileURLToPath(new URL('../fixtures/single-runner-data/', import.meta.url));
const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const ids = JSON.parse(readFileSync(path.join(FIXTURE, 'fixture.json'), 'utf8')) as {
  url: string;
  first: string;
  second: string;
  third: string;
  runnerId: string;
};

let tmp: string | null = null;
let emu: RunningEmulator | null = null;
let core: Core | null = null;
afterEach(async () => {
  await core?.shutdown(0);
  await emu?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  core = emu = tmp = null;
});

/** Every file under a folder with its bytes, by relative path. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[path.relative(dir, full)] = readFileSync(full, 'latin1');
    }
  };
  walk(dir);
  return out;
}

/** The fixture's data folder in a temp dir with the owner-only modes git does not keep. */
function copyFixture(): string {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-migrate-'));
  const dataDir = path.join(tmp, 'data');
  cpSync(path.join(FIXTURE, 'data'), dataDir, { recursive: true });
  const modes = (d: string) => {
    chmodSync(d, 0o700);
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) modes(full);
      else chmodSync(full, 0o600);
    }
  };
  modes(dataDir);
  return dataDir;
}

describe('a data folder from the single-runner release', () => {
  it('becomes the default profile without loss, keeps the old files for a downgrade, and runs on', async () => {
    const dataDir = copyFixture();
    const before = tree(dataDir);
    const db = path.join(tmp!, 'emulator.sqlite');
    writeFileSync(db, gunzipSync(readFileSync(path.join(FIXTURE, 'emulator.sqlite.gz'))));
    emu = await startEmulator({
      db,
      config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } },
    });
    // The runner was paired with the fixture's emulator address; today's emulator has another port.
    const live = emu.url;
    const fetchToLive = (input: string, init: RequestInit) => fetch(input.replace(ids.url, live), init);
    const events: HostEvent[] = [];
    const boot = () =>
      bootstrapCore({
        mode: 'headless',
        appName: 'Runner Tray',
        appVersion: '0.0.0-test',
        dataDir,
        logFiles: false,
        allowFileSecretStore: true,
        fetch: fetchToLive,
        runtimeBinaries: { claude: FAKE, codex: FAKE },
      });
    core = await boot();
    core.host.subscribe((batch) => events.push(...batch));

    // The old files are all still there, unchanged: an older build finds what it left.
    const after = tree(dataDir);
    for (const [file, bytes] of Object.entries(before)) {
      if (file.startsWith('turns/') || file.startsWith('usage/')) continue; // in use by the host
      expect(after[file], file).toBe(bytes);
    }
    // The runner's own files were copied into the default profile, byte for byte.
    const profile = path.join(dataDir, 'profiles', 'default');
    expect(readFileSync(path.join(profile, 'runner-state.json'), 'utf8')).toBe(before['runner-state.json']);
    expect(JSON.parse(readFileSync(path.join(dataDir, 'profiles.json'), 'utf8'))).toEqual({
      version: 1,
      profiles: [{ id: 'default', name: 'Default', connector: 'rost' }],
    });

    const invoke = async <T>(name: string, input?: unknown): Promise<T> => {
      const r = await core!.host.invoke(name, input);
      if (!r.ok) throw new Error(r.error.message);
      return r.value as T;
    };
    const snapshot = await invoke<RunnerSnapshot>('runner:snapshot');
    expect(snapshot.identity).toMatchObject({ runnerId: ids.runnerId, name: 'fixture-runner', controlPlane: ids.url });
    expect(snapshot.paused).toMatchObject({ until: null, note: 'fixture: paused before the upgrade' });
    expect(snapshot.modelAccount.alias).toBe('team-a');
    const view = await invoke<SettingsView>('settings:get', { profile: 'default' });
    expect(view.settings).toMatchObject({
      runnerName: 'fixture-runner',
      runtime: 'claude',
      maxSessions: 2,
      modelAccountAlias: 'team-a',
      notifications: false,
      secretBackend: 'file',
    });
    expect(await invoke<ProfileSummary[]>('profiles:list')).toEqual([expect.objectContaining({ id: 'default', runnerId: ids.runnerId, paused: true })]);

    // The result in the outbox and the turn the crash interrupted reach the control plane.
    await emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === ids.second, { timeoutMs: 15_000, since: 0 });
    await emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === ids.third, { timeoutMs: 15_000, since: 0 });
    expect(emu.admin.listResults({ unit_id: ids.third })[0]).toMatchObject({ status: 'failed' });
    const history = await invoke<TurnsPage>('turns:list');
    expect(history.history.map((t) => t.id)).toEqual(expect.arrayContaining([ids.first, ids.second, ids.third]));

    // Runs on: resumed, it claims and runs new work.
    await invoke('runner:resume');
    const next = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:after' });
    await emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === next.id, { timeoutMs: 15_000, since: 0 });
    expect(emu.admin.listResults({ unit_id: next.id })[0]).toMatchObject({ status: 'succeeded' });
    const finishedRow = () => events.flatMap((e) => (e.event === 'turns:update' ? e.payload.finished : [])).find((t) => t.id === next.id);
    await new Promise<void>((resolve) => {
      const off = core!.host.subscribe(() => {
        if (!finishedRow()) return;
        off();
        resolve();
      });
      if (finishedRow()) resolve();
    });
    expect(finishedRow()).toMatchObject({ profile: 'default', phase: 'succeeded' });

    // A second start does not migrate again.
    await core.shutdown(0);
    core = await boot();
    expect((await invoke<RunnerSnapshot>('runner:snapshot')).identity?.runnerId).toBe(ids.runnerId);
  });
});
