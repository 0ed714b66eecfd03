import { describe, expect, it } from 'vitest';
import type { Settings, SettingsPatch } from '../../../shared/settings';
import { ProfileOverrides, ProfileSettings } from '../../../main/core/sessions/profile-settings';
import { createSettingsStore, type SettingsBackend } from '../../../main/core/settings/settings-store';

class MemoryBackend implements SettingsBackend {
  data: unknown;
  failWrites = false;
  writes = 0;
  read(): unknown {
    return structuredClone(this.data);
  }
  write(data: unknown): void {
    if (this.failWrites) throw new Error('disk full');
    this.data = structuredClone(data);
    this.writes++;
  }
  /** The values stored, without the document's envelope. */
  get stored(): Record<string, unknown> {
    return (this.data as { settings?: Record<string, unknown> } | undefined)?.settings ?? {};
  }
}

function stores(options: { hostOverrides?: SettingsPatch; ownOverrides?: SettingsPatch } = {}) {
  const hostFile = new MemoryBackend();
  const ownFile = new MemoryBackend();
  const host = createSettingsStore({ backend: hostFile, hostname: 'box', ...(options.hostOverrides ? { overrides: options.hostOverrides } : {}) });
  const own = createSettingsStore({ backend: ownFile, hostname: 'box', ...(options.ownOverrides ? { overrides: options.ownOverrides } : {}) });
  return { hostFile, ownFile, host, own, profile: new ProfileSettings(host, own) };
}

describe("ProfileSettings: a profile's own keys over the host-wide ones", () => {
  it('reads per-profile keys from its own file and everything else from the host', () => {
    const { host, own, profile } = stores();
    host.update({ runnerName: 'host-name', notifications: false, heartbeatMs: 9_000 });
    own.update({ runnerName: 'lab', notifications: true });
    expect(profile.get()).toMatchObject({ runnerName: 'lab', notifications: false });
    // The profile's own default wins over the host's stored value of a per-profile key.
    expect(profile.get().heartbeatMs).toBe(own.get().heartbeatMs);
    expect(profile.get().heartbeatMs).not.toBe(9_000);
  });

  it('sends each key of an update to where it lives and answers with the merged settings', () => {
    const { hostFile, ownFile, profile } = stores();
    const result = profile.update({ runnerName: 'lab', maxSessions: 3, notifications: false, quitDrainMs: 60_000 });
    expect(result).toMatchObject({ ok: true, value: { runnerName: 'lab', maxSessions: 3, notifications: false, quitDrainMs: 60_000 } });
    expect(ownFile.stored).toEqual({ runnerName: 'lab', maxSessions: 3 });
    expect(hostFile.stored).toEqual({ notifications: false, quitDrainMs: 60_000 });
  });

  it('writes only the side an update touches', () => {
    const { hostFile, ownFile, profile } = stores();
    profile.update({ runnerName: 'lab' });
    expect([ownFile.writes, hostFile.writes]).toEqual([1, 0]);
    profile.update({ notifications: false });
    expect([ownFile.writes, hostFile.writes]).toEqual([1, 1]);
  });

  it('checks an update whole: one bad key and nothing is written anywhere', () => {
    const { hostFile, ownFile, profile } = stores();
    const result = profile.update({ runnerName: 'lab', notifications: 'loud' });
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_settings', field: 'notifications' } });
    expect([ownFile.writes, hostFile.writes]).toEqual([0, 0]);
    expect(profile.update({ noSuchSetting: 1 })).toMatchObject({ ok: false, error: { code: 'invalid_settings' } });
    expect(profile.update('not an object')).toMatchObject({ ok: false, error: { code: 'invalid_settings' } });
    expect([ownFile.writes, hostFile.writes]).toEqual([0, 0]);
  });

  it("stops at the profile's own file when it cannot be saved: the host-wide part is not written either", () => {
    const { hostFile, ownFile, profile } = stores();
    ownFile.failWrites = true;
    const result = profile.update({ runnerName: 'lab', notifications: false });
    expect(result).toMatchObject({ ok: false, error: { code: 'settings_not_saved' } });
    expect(hostFile.writes).toBe(0);
    expect(profile.get()).toMatchObject({ notifications: true });
  });

  it('names as overridden the host overrides of host-wide keys and its own overrides of per-profile keys only', () => {
    const { profile } = stores({
      hostOverrides: { runnerName: 'from-host-env', notifications: false },
      ownOverrides: { maxSessions: 2, launchAtLogin: true },
    });
    expect([...profile.overriddenKeys()].sort()).toEqual(['maxSessions', 'notifications']);
  });

  it('tells a listener of a change on either side, with the merged settings, until it unsubscribes', () => {
    const { host, own, profile } = stores();
    const heard: Settings[] = [];
    const off = profile.onChange((s) => heard.push(s));
    own.update({ runnerName: 'lab' });
    host.update({ notifications: false });
    expect(heard.map((s) => [s.runnerName, s.notifications])).toEqual([
      ['lab', true],
      ['lab', false],
    ]);
    off();
    own.update({ runnerName: 'other' });
    host.update({ notifications: true });
    expect(heard).toHaveLength(2);
  });

  it('lists the warnings of both files', () => {
    const hostFile = new MemoryBackend();
    hostFile.data = { schemaVersion: 999, settings: {} };
    const ownFile = new MemoryBackend();
    ownFile.data = { schemaVersion: 999, settings: {} };
    const profile = new ProfileSettings(
      createSettingsStore({ backend: hostFile, hostname: 'box' }),
      createSettingsStore({ backend: ownFile, hostname: 'box' }),
    );
    expect(profile.warnings).toHaveLength(2);
  });
});

describe("ProfileOverrides: the headless host's env, flags and profiles file by profile", () => {
  const flags: SettingsPatch = { runnerName: 'flag-name', maxSessions: 4, notifications: false };
  const sources = { runnerName: '--runner-name', maxSessions: 'RUNNER_MAX_SESSIONS', notifications: '--no-notifications' };
  const listed = [
    { id: 'main', overrides: { runnerName: 'file-name', heartbeatMs: 5_000 } },
    { id: 'other', overrides: { runnerName: 'other-name' } },
  ];

  it('gives host-wide flags to the host and per-profile flags to the main profile only, over its profiles-file entry', () => {
    const o = new ProfileOverrides('main', flags, sources, listed);
    expect(o.host).toEqual({ notifications: false });
    expect(o.for('main')).toEqual({ runnerName: 'flag-name', heartbeatMs: 5_000, maxSessions: 4 });
    expect(o.for('other')).toEqual({ runnerName: 'other-name' });
    expect(o.for('unlisted')).toBeUndefined();
  });

  it('says where each override of a profile came from: a flag for the main profile, else the profiles file and host-wide flags', () => {
    const o = new ProfileOverrides('main', flags, sources, listed);
    expect(o.sourcesFor('main')).toEqual({
      runnerName: '--runner-name',
      heartbeatMs: 'profiles file',
      maxSessions: 'RUNNER_MAX_SESSIONS',
      notifications: '--no-notifications',
    });
    expect(o.sourcesFor('other')).toEqual({ runnerName: 'profiles file', notifications: '--no-notifications' });
    expect(o.sourcesFor('unlisted')).toEqual({ notifications: '--no-notifications' });
  });
});
