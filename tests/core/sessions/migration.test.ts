import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateToProfiles } from '../../../main/core/sessions/migration';
import { ProfileStore } from '../../../main/core/sessions/profile-store';
import { testLogging } from '../../helpers/test-logger';

const FIXTURE = fileURLToPath(new URL('../../fixtures/single-runner-data/data/', import.meta.url));

let tmp: string | null = null;
afterEach(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  tmp = null;
});

function dataFolder(): string {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-migration-'));
  cpSync(FIXTURE, tmp, { recursive: true });
  return tmp;
}

const legacySettings = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'settings.json'), 'utf8')) as unknown;

describe('migrating to profiles', () => {
  it('copies identity, outbox, journal and per-profile settings into profiles/default, then writes profiles.json', async () => {
    const dir = dataFolder();
    const store = new ProfileStore(dir);
    const r = await migrateToProfiles({ dataDir: dir, store, legacySettings: legacySettings(dir), hostname: 'h', log: testLogging().log });
    expect(r).toEqual({ created: true, migrated: ['runner-state.json', 'outbox', 'running', 'settings'] });
    const target = path.join(dir, 'profiles', 'default');
    for (const file of ['runner-state.json', 'outbox', 'running']) expect(existsSync(path.join(target, file)), file).toBe(true);
    const settings = JSON.parse(readFileSync(path.join(target, 'settings.json'), 'utf8')) as { settings: Record<string, unknown> };
    // Only the per-profile keys move; host-wide ones (secret backend, notifications) stay the host's.
    expect(settings.settings).toEqual({
      controlPlaneUrl: expect.any(String),
      runnerName: 'fixture-runner',
      runtime: 'claude',
      heartbeatMs: 1000,
      maxSessions: 2,
      modelAccountAlias: 'team-a',
    });
    expect(store.all()).toEqual([{ id: 'default', name: 'Default', connector: 'rost' }]);
    // Done once.
    expect(await migrateToProfiles({ dataDir: dir, store: new ProfileStore(dir), legacySettings: null, hostname: 'h', log: testLogging().log })).toEqual({
      created: false,
      migrated: [],
    });
  });

  it('an interrupted earlier try (no profiles.json yet) is thrown away and done again from the old files', async () => {
    const dir = dataFolder();
    mkdirSync(path.join(dir, 'profiles', '.default.migrating'), { recursive: true });
    writeFileSync(path.join(dir, 'profiles', '.default.migrating', 'runner-state.json'), 'half');
    mkdirSync(path.join(dir, 'profiles', 'default', 'outbox'), { recursive: true });
    writeFileSync(path.join(dir, 'profiles', 'default', 'outbox', 'stray.json'), '{}');
    const store = new ProfileStore(dir);
    await migrateToProfiles({ dataDir: dir, store, legacySettings: legacySettings(dir), hostname: 'h', log: testLogging().log });
    const target = path.join(dir, 'profiles', 'default');
    expect(readFileSync(path.join(target, 'runner-state.json'), 'utf8')).toBe(readFileSync(path.join(dir, 'runner-state.json'), 'utf8'));
    expect(existsSync(path.join(target, 'outbox', 'stray.json'))).toBe(false);
    expect(existsSync(path.join(dir, 'profiles', '.default.migrating'))).toBe(false);
  });

  it('a damaged profiles file stops the start with a clear message', async () => {
    const dir = dataFolder();
    writeFileSync(path.join(dir, 'profiles.json'), JSON.stringify({ version: 1, profiles: [{ id: 'lab', name: 'Lab', connector: 'rost' }] }));
    await expect(
      migrateToProfiles({ dataDir: dir, store: new ProfileStore(dir), legacySettings: null, hostname: 'h', log: testLogging().log }),
    ).rejects.toThrow(/profiles\.json is not valid: .*the default profile is missing/);
  });

  it('a fresh data folder gets an empty default profile', async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-migration-'));
    const store = new ProfileStore(tmp);
    expect(await migrateToProfiles({ dataDir: tmp, store, legacySettings: undefined, hostname: 'h', log: testLogging().log })).toEqual({
      created: true,
      migrated: [],
    });
    expect(existsSync(path.join(tmp, 'profiles', 'default'))).toBe(true);
  });
});
