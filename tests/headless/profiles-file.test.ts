import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SettingsView } from '../../shared/contract';
import type { ProfileSummary } from '../../shared/profiles';
import { bootstrapCore, type Core } from '../../main/core/bootstrap';
import { resolveOverrides } from '../../main/core/settings/overrides';
import { parseProfilesFile } from '../../main/headless/profiles-file';

const parse = (json: unknown) => parseProfilesFile(typeof json === 'string' ? json : JSON.stringify(json), 'fleet.json');

describe('the headless profiles file', () => {
  it('reads several profiles with their per-profile settings', () => {
    expect(
      parse({
        profiles: [
          { id: 'lab', name: 'Lab', settings: { controlPlaneUrl: 'https://lab.example/', maxSessions: 2 } },
          { id: 'home', settings: { runWork: false } },
        ],
      }),
    ).toEqual({
      ok: true,
      profiles: [
        { id: 'lab', name: 'Lab', connector: 'rost', overrides: { controlPlaneUrl: 'https://lab.example', maxSessions: 2 } },
        { id: 'home', name: 'home', connector: 'rost', overrides: { runWork: false } },
      ],
    });
  });

  it('says what is wrong and where, in the settings’ own words', () => {
    expect(parse('{')).toEqual({ ok: false, message: 'fleet.json: is not JSON.' });
    expect(parse({ profiles: [] })).toEqual({ ok: false, message: 'fleet.json: profiles: list at least one profile.' });
    expect(parse({ profiles: [{ id: 'Lab!' }] })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^fleet\.json: profiles\[0\]\.id: A profile id must be/),
    });
    expect(parse({ profiles: [{ id: 'lab', settings: { maxSessions: 9 } }] })).toEqual({
      ok: false,
      message: 'fleet.json: profiles[0].settings: maxSessions must be an integer from 1 to 8.',
    });
    expect(parse({ profiles: [{ id: 'lab', settings: { notifications: false } }] })).toEqual({
      ok: false,
      message: 'fleet.json: profiles[0].settings.notifications: is a host-wide setting: set it once for the host, not per profile.',
    });
    expect(parse({ profiles: [{ id: 'lab', settings: { colour: 'red' } }] })).toEqual({
      ok: false,
      message: 'fleet.json: profiles[0].settings: Unknown setting: colour.',
    });
    expect(parse({ profiles: [{ id: 'lab' }, { id: 'lab' }] })).toEqual({
      ok: false,
      message: 'fleet.json: profiles[1].id: the profile "lab" is listed twice.',
    });
    expect(parse({ profiles: [{ id: 'lab', connector: 'gitlab' }] })).toMatchObject({
      ok: false,
      message: 'fleet.json: profiles[0].connector: The connector must be rost or sechroom.',
    });
  });

  it('--profile names the profile of the seed-compatible flags, and must be an id', () => {
    expect(resolveOverrides({}, ['--profile', 'lab', '--max-sessions', '3'])).toMatchObject({ ok: true, profile: 'lab', overrides: { maxSessions: 3 } });
    expect(resolveOverrides({ RUNNER_TRAY_PROFILE: 'lab' }, [])).toMatchObject({ ok: true, profile: 'lab' });
    expect(resolveOverrides({}, ['--profile', 'Lab Box'])).toMatchObject({
      ok: false,
      error: { message: '--profile must be a profile id: 1–40 lowercase letters, digits and dashes.' },
    });
    expect(resolveOverrides({}, ['--profiles', 'fleet.json'])).toMatchObject({ ok: true, profilesFile: 'fleet.json' });
  });
});

describe('a host started with --profile and a profiles file', () => {
  let dir: string | null = null;
  let core: Core | null = null;
  afterEach(async () => {
    await core?.shutdown(0);
    if (dir) rmSync(dir, { recursive: true, force: true });
    core = dir = null;
  });

  it('holds every listed profile, the flags apply to the named one, and nothing of it is saved', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-profiles-'));
    const boot = (extra: Parameters<typeof bootstrapCore>[0]['profiles'] = [], flags = true) =>
      bootstrapCore({
        mode: 'headless',
        appName: 'Runner Tray',
        appVersion: '0.0.0-test',
        dataDir: dir!,
        logFiles: false,
        secretStore: { ok: false, reason: 'none in this test' },
        profile: 'lab',
        ...(flags
          ? {
              overrides: { maxSessions: 3, notifications: false },
              overrideSources: { maxSessions: '--max-sessions', notifications: 'RUNNER_TRAY_NOTIFICATIONS' },
            }
          : {}),
        profiles: extra,
      });
    core = await boot([
      { id: 'lab', name: 'Lab', connector: 'rost', overrides: { maxSessions: 2, runnerName: 'lab-box' } },
      { id: 'ci', name: 'CI', connector: 'rost', overrides: { runWork: false } },
    ]);
    const invoke = async <T>(name: string, input?: unknown) => {
      const r = await core!.host.invoke(name, input);
      if (!r.ok) throw new Error(r.error.message);
      return r.value as T;
    };
    expect((await invoke<ProfileSummary[]>('profiles:list')).map((p) => [p.id, p.name])).toEqual([
      ['default', 'Default'],
      ['lab', 'Lab'],
      ['ci', 'CI'],
    ]);
    const lab = await invoke<SettingsView>('settings:get', { profile: 'lab' });
    expect(lab.settings).toMatchObject({ maxSessions: 3, runnerName: 'lab-box', notifications: false });
    expect(lab.overridden).toEqual(
      expect.arrayContaining([
        { key: 'maxSessions', source: '--max-sessions' },
        { key: 'runnerName', source: 'profiles file' },
        { key: 'notifications', source: 'RUNNER_TRAY_NOTIFICATIONS' },
      ]),
    );
    expect((await invoke<SettingsView>('settings:get', { profile: 'ci' })).settings.runWork).toBe(false);
    expect((await invoke<SettingsView>('settings:get')).settings.maxSessions).toBe(1);
    expect(core.runner.profile.id).toBe('lab');
    // Restarted without the file and flags: the profiles stay, their overrides are gone.
    await core.shutdown(0);
    core = await boot([], false);
    expect((await invoke<SettingsView>('settings:get', { profile: 'lab' })).settings).toMatchObject({ maxSessions: 1, notifications: true });
    expect((await invoke<ProfileSummary[]>('profiles:list')).map((p) => p.id)).toEqual(['default', 'lab', 'ci']);
  });
});
