import { describe, expect, it } from 'vitest';
import { resolveOverrides } from '../../../main/core/settings/overrides';

function ok(env: Record<string, string | undefined>, argv: string[]) {
  const r = resolveOverrides(env, argv);
  if (!r.ok) throw new Error(`expected ok, got: ${r.error.message}`);
  return r;
}
function message(env: Record<string, string | undefined>, argv: string[]): string {
  const r = resolveOverrides(env, argv);
  if (r.ok) throw new Error('expected an error');
  return r.error.message;
}

describe('resolveOverrides', () => {
  it('returns nothing to override when nothing is given', () => {
    expect(ok({}, [])).toEqual({
      ok: true,
      overrides: {},
      sources: {},
      once: false,
      dryRun: false,
      open: false,
      allowFileSecretStore: false,
      fleet: { metrics: null, webhookUrl: null },
    });
  });

  it('reads --dry-run as a switch [v1]', () => {
    expect(ok({}, ['--dry-run', '--execute'])).toMatchObject({ dryRun: true, once: false });
  });

  it('reads the seed CLI env names', () => {
    const r = ok(
      {
        RUNNER_NAME: 'edge-1',
        RUNNER_HEARTBEAT_MS: '15000',
        RUNNER_INTERACTIVE_CLAIM_MS: '500',
        RUNNER_RUNTIME: 'codex',
        RUNNER_CONTROL_PLANE_URL: 'https://rost.example/',
        RUNNER_MAX_SESSIONS: '2',
        RUNNER_MODEL_ACCOUNT_ALIAS: ' team ',
        RUNNER_MODEL_ACCOUNT_STATE: 'limited',
        RUNNER_STATE_FILE: '/tmp/rost-runner-abcd1234.json',
      },
      [],
    );
    expect(r.overrides).toEqual({
      runnerName: 'edge-1',
      heartbeatMs: 15000,
      interactiveClaimMs: 500,
      runtime: 'codex',
      controlPlaneUrl: 'https://rost.example',
      maxSessions: 2,
      modelAccountAlias: 'team',
      modelAccountState: 'limited',
      // A seed unit's environment without RUNNER_EXECUTE=1: heartbeat only, as the seed.
      runWork: false,
    });
    expect(r.sources.heartbeatMs).toBe('RUNNER_HEARTBEAT_MS');
    expect(r.importStateFile).toBe('/tmp/rost-runner-abcd1234.json');
  });

  it('lets flags beat env, in both --flag value and --flag=value forms', () => {
    const r = ok({ RUNNER_NAME: 'env-name', RUNNER_HEARTBEAT_MS: '15000', RUNNER_STATE_FILE: '/env/state.json' }, [
      '--name',
      'flag-name',
      '--heartbeat-ms=20000',
      '--import-state',
      '/flag/state.json',
    ]);
    expect(r.overrides).toMatchObject({ runnerName: 'flag-name', heartbeatMs: 20000 });
    expect(r.sources).toMatchObject({ runnerName: '--name', heartbeatMs: '--heartbeat-ms' });
    expect(r.importStateFile).toBe('/flag/state.json');
  });

  it('prefers RUNNER_ over ROST_RUNNER_ whenever it is defined, even empty (the seed uses ??)', () => {
    expect(ok({ ROST_RUNNER_MODEL_ACCOUNT_ALIAS: 'rost-alias' }, []).overrides.modelAccountAlias).toBe('rost-alias');
    expect(ok({ RUNNER_MODEL_ACCOUNT_ALIAS: 'mine', ROST_RUNNER_MODEL_ACCOUNT_ALIAS: 'rost' }, []).overrides.modelAccountAlias).toBe('mine');
    expect(ok({ RUNNER_MODEL_ACCOUNT_ALIAS: '', ROST_RUNNER_MODEL_ACCOUNT_ALIAS: 'rost' }, []).overrides.modelAccountAlias).toBe('default');
    expect(ok({ ROST_RUNNER_MODEL_ACCOUNT_STATE: 'exhausted' }, []).sources.modelAccountState).toBe('ROST_RUNNER_MODEL_ACCOUNT_STATE');
    expect(ok({ RUNNER_MODEL_ACCOUNT_STATE: '  ', ROST_RUNNER_MODEL_ACCOUNT_STATE: 'x' }, []).overrides.modelAccountState).toBe('unknown');
  });

  it('treats a blank single variable as unset', () => {
    expect(ok({ RUNNER_HEARTBEAT_MS: '', RUNNER_NAME: '  ' }, []).overrides).toEqual({});
  });

  it('uses the seed wording, naming the flag or variable that was wrong', () => {
    expect(message({}, ['--heartbeat-ms', '999'])).toBe('--heartbeat-ms must be an integer >= 1000.');
    expect(message({}, ['--heartbeat-ms', '1500.5'])).toBe('--heartbeat-ms must be an integer >= 1000.');
    expect(message({}, ['--interactive-claim-ms', '100'])).toBe('--interactive-claim-ms must be an integer >= 250.');
    expect(message({ RUNNER_HEARTBEAT_MS: 'soon' }, [])).toBe('RUNNER_HEARTBEAT_MS must be an integer >= 1000.');
    expect(message({ RUNNER_INTERACTIVE_CLAIM_MS: '1' }, [])).toBe('RUNNER_INTERACTIVE_CLAIM_MS must be an integer >= 250.');
    expect(message({}, ['--runtime', 'gpt'])).toBe('--runtime must be auto, claude or codex.');
    expect(message({ RUNNER_RUNTIME: 'gpt' }, [])).toBe('RUNNER_RUNTIME must be auto, claude or codex.');
    expect(message({}, ['--max-sessions', '9'])).toBe('--max-sessions must be an integer from 1 to 8.');
    expect(message({}, ['--control-plane', 'rost.example'])).toBe(
      '--control-plane must be an https:// URL (http:// only for 127.0.0.1, ::1 or localhost) without a user name or password.',
    );
    expect(message({}, ['--port', '70000'])).toBe('--port must be an integer from 0 to 65535.');
  });

  it("RUNNER_TRAY_QUIT_DRAIN_MS overrides the quitDrainMs setting, with the setting's rule", () => {
    expect(resolveOverrides({ RUNNER_TRAY_QUIT_DRAIN_MS: '60000' }, [])).toMatchObject({
      ok: true,
      overrides: { quitDrainMs: 60_000 },
      sources: { quitDrainMs: 'RUNNER_TRAY_QUIT_DRAIN_MS' },
    });
    expect(resolveOverrides({ RUNNER_TRAY_QUIT_DRAIN_MS: '0' }, [])).toMatchObject({ ok: true, overrides: { quitDrainMs: 0 } });
    expect(resolveOverrides({ RUNNER_TRAY_QUIT_DRAIN_MS: 'soon' }, [])).toEqual({
      ok: false,
      error: { code: 'invalid_option', message: 'RUNNER_TRAY_QUIT_DRAIN_MS must be an integer from 0 to 86400000.', field: 'quitDrainMs' },
    });
  });

  it("RUNNER_TRAY_DISK_MIN_FREE_GB sets the free-disk floor (a container on a small volume), with the setting's range", () => {
    expect(ok({ RUNNER_TRAY_DISK_MIN_FREE_GB: '0.5' }, [])).toMatchObject({
      overrides: { diskMinFreeGb: 0.5 },
      sources: { diskMinFreeGb: 'RUNNER_TRAY_DISK_MIN_FREE_GB' },
    });
    expect(ok({ RUNNER_TRAY_DISK_MIN_FREE_GB: '0' }, []).overrides).toEqual({ diskMinFreeGb: 0 });
    expect(message({ RUNNER_TRAY_DISK_MIN_FREE_GB: 'lots' }, [])).toMatch(/^RUNNER_TRAY_DISK_MIN_FREE_GB must be a number from 0 to 10000/);
  });

  it('does not validate the env value a flag replaces', () => {
    expect(ok({ RUNNER_HEARTBEAT_MS: 'bad' }, ['--heartbeat-ms', '2000']).overrides.heartbeatMs).toBe(2000);
  });

  it('reads the host flags', () => {
    const r = ok({ RUNNER_TRAY_DATA_DIR: '/env/data' }, ['--once', '--open', '--port', '0', '--allow-file-secret-store', '--data-dir=/flag/data']);
    expect(r).toMatchObject({ once: true, open: true, port: 0, allowFileSecretStore: true, dataDir: '/flag/data' });
    expect(ok({ RUNNER_TRAY_DATA_DIR: '/env/data' }, []).dataDir).toBe('/env/data');
  });

  it('refuses unknown options, stray arguments, missing values and values on switches', () => {
    expect(message({}, ['--exec'])).toMatch(/^Unknown option: --exec\. Usage: /);
    expect(message({}, ['--token=abc123'])).toMatch(/^Unknown option: --token\. /);
    expect(message({}, ['serve'])).toMatch(/^Unexpected argument: serve\. /);
    expect(message({}, ['--name'])).toBe('--name needs a value.');
    expect(message({}, ['--name', '--once'])).toBe('--name needs a value.');
    expect(message({}, ['--once=yes'])).toBe('--once takes no value.');
  });

  it('reads the seed serve line: --execute, --state-file, --user-code, and RUNNER_EXECUTE', () => {
    const r = ok({}, ['--execute', '--state-file', '/var/lib/rost/runner.json', '--heartbeat-ms', '30000', '--user-code', ' BDFG-HJKL ']);
    expect(r).toMatchObject({
      overrides: { runWork: true, heartbeatMs: 30000 },
      sources: { runWork: '--execute' },
      importStateFile: '/var/lib/rost/runner.json',
      userCode: 'BDFG-HJKL',
    });
    expect(ok({}, ['--no-execute'])).toMatchObject({ overrides: { runWork: false }, sources: { runWork: '--no-execute' } });
    expect(ok({ RUNNER_EXECUTE: '1' }, [])).toMatchObject({ overrides: { runWork: true }, sources: { runWork: 'RUNNER_EXECUTE=1' } });
    expect(ok({ RUNNER_EXECUTE: '0' }, [])).toMatchObject({ overrides: { runWork: false }, sources: { runWork: 'RUNNER_EXECUTE=0' } });
    // As the seed's: only `1` runs work; `true` is heartbeat only.
    expect(ok({ RUNNER_EXECUTE: 'true' }, [])).toMatchObject({ overrides: { runWork: false }, sources: { runWork: 'RUNNER_EXECUTE=true' } });
    // A seed unit line (a state file) without --execute is heartbeat only; with it, or with RUNNER_EXECUTE=1, it runs work.
    expect(ok({}, ['--state-file', '/var/lib/rost/runner.json'])).toMatchObject({
      overrides: { runWork: false },
      sources: { runWork: '--state-file without --execute' },
    });
    expect(ok({ RUNNER_STATE_FILE: '/r.json' }, []).overrides.runWork).toBe(false);
    expect(ok({ RUNNER_STATE_FILE: '/r.json', RUNNER_EXECUTE: '1' }, []).overrides.runWork).toBe(true);
    // No state file: the stored setting decides (the desktop app's own default).
    expect(ok({}, []).overrides.runWork).toBeUndefined();
    // A flag beats the variable, as everywhere.
    expect(ok({ RUNNER_EXECUTE: '0' }, ['--execute']).overrides.runWork).toBe(true);
    // Unset or blank: the stored setting decides (on by default).
    expect(ok({ RUNNER_EXECUTE: '' }, []).overrides.runWork).toBeUndefined();
    expect(ok({ RUNNER_STATE_FILE: '/tmp/rost-runner-1a2b3c4d.json' }, []).importStateFile).toBe('/tmp/rost-runner-1a2b3c4d.json');
    expect(ok({ RUNNER_STATE_FILE: '/env.json' }, ['--state-file', '/flag.json']).importStateFile).toBe('/flag.json');
  });

  it.each([
    [{}, ['--heartbeat-ms', '999'], '--heartbeat-ms must be an integer >= 1000.'],
    [{}, ['--heartbeat-ms', '1500.5'], '--heartbeat-ms must be an integer >= 1000.'],
    [{ RUNNER_HEARTBEAT_MS: 'soon' }, [], 'RUNNER_HEARTBEAT_MS must be an integer >= 1000.'],
    [{}, ['--interactive-claim-ms', '100'], '--interactive-claim-ms must be an integer >= 250.'],
    [{ RUNNER_INTERACTIVE_CLAIM_MS: '10' }, [], 'RUNNER_INTERACTIVE_CLAIM_MS must be an integer >= 250.'],
    [{}, ['--runtime', 'gemini'], '--runtime must be auto, claude or codex.'],
    [{ RUNNER_RUNTIME: 'gpt' }, [], 'RUNNER_RUNTIME must be auto, claude or codex.'],
    [{ RUNNER_NAME: ' '.repeat(3) + 'x'.repeat(101) }, [], 'RUNNER_NAME must be 1–100 characters.'],
    [{}, ['--execute', '--no-execute'], '--execute and --no-execute cannot be used together.'],
    [{}, ['--execute=1'], '--execute takes no value.'],
    [{}, ['--state-file'], '--state-file needs a value.'],
    [{}, ['--state-file', ' '], '--state-file needs a file path.'],
    [{}, ['--user-code', ' '], '--user-code needs the code an operator was given.'],
    [{ RUNNER_TRAY_HEALTH_PORT: '70000' }, [], 'RUNNER_TRAY_HEALTH_PORT must be an integer from 0 to 65535.'],
  ])('refuses %j %j: %s', (env, argv, expected) => {
    expect(message(env, argv)).toBe(expected);
  });

  it('reads the probe listener and the file-store opt-in from the environment (containers have no flags to spare)', () => {
    expect(ok({ RUNNER_TRAY_HEALTH_PORT: '8080', RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1' }, [])).toMatchObject({
      healthPort: 8080,
      allowFileSecretStore: true,
    });
    expect(ok({}, ['--health-port', '0', '--health-host', '127.0.0.1'])).toMatchObject({ healthPort: 0, healthHost: '127.0.0.1' });
    expect(ok({ RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '0' }, []).allowFileSecretStore).toBe(false);
  });

  // The cases where node's parseArgs, in strict mode, would answer otherwise than the seed.
  it('takes a value that starts with one dash, and refuses a lone --, short options and -abc groups as the seed does', () => {
    expect(ok({}, ['--name', '-x']).overrides.runnerName).toBe('-x');
    expect(message({}, ['--heartbeat-ms', '-5'])).toBe('--heartbeat-ms must be an integer >= 1000.');
    expect(message({}, ['--name=edge', '--'])).toMatch(/^Unknown option: --\. Usage: /);
    expect(message({}, ['-abc'])).toMatch(/^Unknown option: -abc\. /);
    expect(message({}, ['-'])).toMatch(/^Unknown option: -\. /);
  });

  it('treats argv words that name Object properties as plain arguments', () => {
    expect(message({}, ['__proto__'])).toMatch(/^Unexpected argument: __proto__\. /);
    expect(resolveOverrides({}, ['__proto__'])).toMatchObject({ ok: false, error: { field: null } });
  });
});
