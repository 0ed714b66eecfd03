import { describe, expect, it } from 'vitest';
import { SETTING_KEYS, defaultSettings, effectiveCadence, parseSetting, parseSettings, parseSettingsPatch, settingMessage } from '../../../shared/settings';

describe('settings schema', () => {
  it('has valid defaults, with the seed CLI default runner name', () => {
    const d = defaultSettings('build-01');
    expect(parseSettings(d)).toEqual({ ok: true, value: d });
    expect(d).toMatchObject({
      controlPlaneUrl: 'http://127.0.0.1:7457',
      runnerName: 'headless-build-01',
      runtime: 'auto',
      heartbeatMs: 30_000,
      interactiveClaimMs: 1000,
      maxSessions: 1,
      modelAccountAlias: 'default',
      modelAccountState: 'unknown',
      secretBackend: 'keychain',
      launchAtLogin: false,
      notifications: true,
    });
    expect(defaultSettings('  ').runnerName).toBe('headless-runner');
    expect(defaultSettings('x'.repeat(200)).runnerName).toHaveLength(100);
  });

  it('uses the seed CLI wording when labelled with the flag', () => {
    expect(parseSetting('heartbeatMs', 999, '--heartbeat-ms')).toEqual({
      ok: false,
      error: { field: 'heartbeatMs', message: '--heartbeat-ms must be an integer >= 1000.' },
    });
    expect(parseSetting('interactiveClaimMs', 249.5, '--interactive-claim-ms')).toMatchObject({
      error: { message: '--interactive-claim-ms must be an integer >= 250.' },
    });
  });

  it.each([
    [
      'controlPlaneUrl',
      'ftp://x.example',
      'Control plane URL must be an https:// URL (http:// only for 127.0.0.1, ::1 or localhost) without a user name or password.',
    ],
    [
      'controlPlaneUrl',
      'https://user:pw@x.example',
      'Control plane URL must be an https:// URL (http:// only for 127.0.0.1, ::1 or localhost) without a user name or password.',
    ],
    [
      'controlPlaneUrl',
      'http://forge.example.com',
      'Control plane URL must be an https:// URL (http:// only for 127.0.0.1, ::1 or localhost) without a user name or password.',
    ],
    [
      'controlPlaneUrl',
      'http://127.0.0.1.example.com',
      'Control plane URL must be an https:// URL (http:// only for 127.0.0.1, ::1 or localhost) without a user name or password.',
    ],
    [
      'runtimeEnvAllow',
      'AWS_PROFILE, RUNNER_NAME',
      "Extra environment variables for runtimes must be variable names or PREFIX_* patterns separated by commas or spaces, none of the runner's own (RUNNER_*, ROST_*, DBUS_*, …).",
    ],
    [
      'runtimeEnvAllow',
      'RUN*',
      "Extra environment variables for runtimes must be variable names or PREFIX_* patterns separated by commas or spaces, none of the runner's own (RUNNER_*, ROST_*, DBUS_*, …).",
    ],
    ['useOwnAgentConfig', 'yes', 'Use my own claude/codex settings must be true or false.'],
    ['runnerName', '   ', 'Runner name must be 1–100 characters.'],
    ['runnerName', 'x'.repeat(101), 'Runner name must be 1–100 characters.'],
    ['runtime', 'gpt', 'Runtime must be auto, claude or codex.'],
    ['heartbeatMs', '30000', 'Heartbeat interval (ms) must be an integer >= 1000.'],
    ['heartbeatMs', Number.NaN, 'Heartbeat interval (ms) must be an integer >= 1000.'],
    ['maxSessions', 9, 'Maximum sessions must be an integer from 1 to 8.'],
    ['maxSessions', 0, 'Maximum sessions must be an integer from 1 to 8.'],
    ['modelAccountAlias', 'a'.repeat(201), 'Model account alias must be at most 200 characters.'],
    ['modelAccountState', 's'.repeat(81), 'Model account state must be at most 80 characters.'],
    ['secretBackend', 'vault', 'Secret storage must be keychain or file.'],
    ['expectedTenantId', 'has space', 'Expected tenant id must be at most 200 characters without spaces.'],
    ['notifications', 'yes', 'Notifications must be true or false.'],
  ] as const)('rejects %s = %j with one clear message', (key, value, message) => {
    expect(parseSettingsPatch({ [key]: value })).toEqual({ ok: false, error: { field: key, message } });
  });

  it('normalizes: trims, blank alias is default, blank state is unknown, blank tenant clears', () => {
    const r = parseSettingsPatch({
      controlPlaneUrl: ' https://rost.example/ ',
      runnerName: '  box  ',
      modelAccountAlias: '   ',
      modelAccountState: '',
      expectedTenantId: '',
    });
    expect(r).toEqual({
      ok: true,
      value: {
        controlPlaneUrl: 'https://rost.example',
        runnerName: 'box',
        modelAccountAlias: 'default',
        modelAccountState: 'unknown',
        expectedTenantId: undefined,
      },
    });
  });

  it('refuses unknown keys and non-objects', () => {
    expect(parseSettingsPatch({ heartbeat: 1 })).toEqual({ ok: false, error: { field: null, message: 'Unknown setting: heartbeat.' } });
    expect(parseSettingsPatch(null)).toMatchObject({ ok: false, error: { message: 'Settings must be an object.' } });
    expect(parseSettingsPatch([1])).toMatchObject({ ok: false });
  });

  it('every field has a message naming it', () => {
    for (const key of SETTING_KEYS) expect(settingMessage(key, 'X')).toMatch(/^X must /);
  });

  it('clamps the interactive claim cadence to the heartbeat', () => {
    expect(effectiveCadence({ heartbeatMs: 2000, interactiveClaimMs: 5000 })).toEqual({ heartbeatMs: 2000, interactiveClaimMs: 2000 });
    expect(effectiveCadence({ heartbeatMs: 30_000, interactiveClaimMs: 1000 })).toEqual({ heartbeatMs: 30_000, interactiveClaimMs: 1000 });
  });
});
