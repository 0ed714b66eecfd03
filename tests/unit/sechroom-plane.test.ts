import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HEARTBEAT_TOO_LONG, TTL_RANGE } from '../../shared/sechroom-instance-settings';
import { FLEET_NEEDS_INSTANCES } from '../../main/core/planes/sechroom/fleet-config';
import { NO_EXECUTOR_STATE, stateRuntimeNotCodex } from '../../main/core/planes/sechroom/executor-state';
import { RUNTIME_CODEX_ONLY } from '../../shared/sechroom-instance-settings';
import { mkdirSync } from 'node:fs';
import { resolveSechroomPlane, runSechroomOnce, sechroomCoreOptions } from '../../main/headless/sechroom-plane';

const base = ['--plane', 'sechroom', '--control-plane', 'http://127.0.0.1:7457/sechroom/', '--tenant', 'tn_1'];
let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

describe('headless --plane sechroom', () => {
  it('makes the single-profile flags a Sechroom profile with the seed flag names; the host keeps its own flags', async () => {
    const plane = await resolveSechroomPlane({ CODEX_BIN: '/opt/codex' }, [
      ...base,
      '--instance-key',
      'Codex-A',
      '--root',
      '/work/repo',
      '--lane',
      'lane-1',
      '--connector',
      'conn_1',
      '--capability',
      'ui',
      '--capability=db',
      '--ttl',
      '300',
      '--poll-interval=2',
      '--heartbeat-interval',
      '20',
      '--turn-timeout',
      '600',
      '--usage-reserve',
      '5',
      '--no-deliver',
      '--no-pr',
      '--max-push-mib',
      '20',
      '--once',
      '--data-dir',
      '/tmp/d',
    ]);
    if (!plane.ok || plane.plane !== 'sechroom') throw new Error(JSON.stringify(plane));
    expect(plane.rest).toEqual(['--once', '--data-dir', '/tmp/d']);
    expect(plane.profiles).toEqual([
      {
        id: 'codex-a',
        config: expect.objectContaining({
          baseUrl: 'http://127.0.0.1:7457/sechroom',
          tenant: 'tn_1',
          account: 'default',
          deliver: false,
          raisePr: false,
          maxPushMiB: 20,
          instance: expect.objectContaining({
            instanceKey: 'Codex-A',
            root: '/work/repo',
            laneId: 'lane-1',
            connectorId: 'conn_1',
            capabilityKeys: ['ui', 'db'],
            ttlSeconds: 300,
            pollIntervalSeconds: 2,
            heartbeatIntervalSeconds: 20,
            turnTimeoutSeconds: 600,
            usageReservePercent: 5,
            codexBin: '/opt/codex',
          }),
        }),
      },
    ]);
    expect(sechroomCoreOptions(plane, undefined)).toMatchObject({
      profile: 'codex-a',
      profileConnector: 'sechroom',
      sechroomProfiles: { 'codex-a': plane.profiles[0]!.config },
    });
    expect(sechroomCoreOptions(plane, 'work')).toMatchObject({ profile: 'work', sechroomProfiles: { work: plane.profiles[0]!.config } });
  });

  it('refuses bad values with the seed’s messages, and Sechroom flags without --plane sechroom', async () => {
    const root = ['--instance-key', 'a', '--root', '/r'];
    expect(await resolveSechroomPlane({}, [...base, ...root, '--heartbeat-interval', '120'])).toEqual({ ok: false, message: HEARTBEAT_TOO_LONG });
    expect(await resolveSechroomPlane({}, [...base, ...root, '--ttl', 'soon'])).toEqual({ ok: false, message: TTL_RANGE });
    // No advertisement in the working folder and no --instance-key: the seed's `executor run` refusal.
    expect(await resolveSechroomPlane({}, [...base, '--root', '/r'])).toEqual({ ok: false, message: NO_EXECUTOR_STATE });
    expect(await resolveSechroomPlane({}, ['--plane', 'sechroom', '--tenant', 't', ...root])).toMatchObject({
      ok: false,
      message: expect.stringContaining('--control-plane'),
    });
    expect(await resolveSechroomPlane({}, ['--plane', 'forge'])).toEqual({ ok: false, message: '--plane must be rost or sechroom.' });
    expect(await resolveSechroomPlane({}, ['--lane', 'x'])).toEqual({ ok: false, message: '--lane is a Sechroom flag: add --plane sechroom.' });
    // Rost stays the default: its flags go through untouched.
    expect(await resolveSechroomPlane({}, ['--control-plane', 'http://cp', '--once'])).toEqual({
      ok: true,
      plane: 'rost',
      rest: ['--once', '--control-plane', 'http://cp'],
      profiles: [],
    });
  });

  it('imports the seed’s fleet config as one profile per instance', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'rt-fleet-'));
    const file = path.join(dir, 'fleet.json');
    writeFileSync(
      file,
      JSON.stringify({
        instances: [
          { instanceKey: 'codex-a', root: 'a', lane: 'l1' },
          { instanceKey: 'codex-b', root: '/abs/b', pollInterval: 3 },
        ],
      }),
    );
    const plane = await resolveSechroomPlane({}, [...base, '--fleet-config', file]);
    if (!plane.ok || plane.plane !== 'sechroom') throw new Error(JSON.stringify(plane));
    expect(plane.profiles.map((p) => [p.id, p.config.instance.root, p.config.instance.laneId ?? null, p.config.instance.pollIntervalSeconds])).toEqual([
      ['codex-a', path.join(dir, 'a'), 'l1', 5],
      ['codex-b', '/abs/b', null, 3],
    ]);
    expect(sechroomCoreOptions(plane, undefined)).toMatchObject({ profile: 'codex-a', sechroomProfiles: { 'codex-a': {}, 'codex-b': {} } });
    // Beside a Rost profile: --control-plane stays Rost's, SECHROOM_BASE_URL and SECHROOM_TENANT name the Work Layer.
    const beside = await resolveSechroomPlane({ SECHROOM_BASE_URL: 'http://127.0.0.1:7457/sechroom', SECHROOM_TENANT: 'tn_2' }, [
      '--control-plane',
      'http://127.0.0.1:7457',
      '--fleet-config',
      file,
    ]);
    if (!beside.ok || beside.plane !== 'rost') throw new Error(JSON.stringify(beside));
    expect(beside.rest).toEqual(['--control-plane', 'http://127.0.0.1:7457']);
    expect(beside.profiles.map((p) => [p.id, p.config.baseUrl, p.config.tenant])).toEqual([
      ['codex-a', 'http://127.0.0.1:7457/sechroom', 'tn_2'],
      ['codex-b', 'http://127.0.0.1:7457/sechroom', 'tn_2'],
    ]);
    expect(sechroomCoreOptions(beside, undefined)).toEqual({
      sechroomProfiles: { 'codex-a': beside.profiles[0]!.config, 'codex-b': beside.profiles[1]!.config },
    });
    expect(await resolveSechroomPlane({}, ['--fleet-config', file])).toMatchObject({ ok: false, message: expect.stringContaining('SECHROOM_BASE_URL') });
    writeFileSync(file, JSON.stringify({ instances: [] }));
    expect(await resolveSechroomPlane({}, [...base, '--fleet-config', file])).toEqual({ ok: false, message: FLEET_NEEDS_INSTANCES });
    expect(await resolveSechroomPlane({}, [...base, '--fleet-config', file, '--root', '/r'])).toMatchObject({
      ok: false,
      message: expect.stringContaining('--root cannot be used'),
    });
  });

  // The cases where node's parseArgs alone would read argv otherwise than the seed.
  it('keeps the host its arguments as they came, reads on past a --, and takes a value that starts with one dash', async () => {
    expect(await resolveSechroomPlane({}, ['-abc', '--name=x', '--once'])).toEqual({
      ok: true,
      plane: 'rost',
      rest: ['-abc', '--name=x', '--once'],
      profiles: [],
    });
    expect(await resolveSechroomPlane({}, ['--', '--tenant', 'tn_1'])).toEqual({ ok: false, message: '--tenant is a Sechroom flag: add --plane sechroom.' });
    expect(await resolveSechroomPlane({}, [...base, '--instance-key', 'k', '--root', '/r', '--ttl', '-5'])).toEqual({ ok: false, message: TTL_RANGE });
    expect(await resolveSechroomPlane({}, ['--tenant', '--once'])).toEqual({ ok: false, message: '--tenant needs a value.' });
  });

  it('leaves argv words that name Object properties to the host', async () => {
    expect(await resolveSechroomPlane({}, ['__proto__', 'x'])).toEqual({ ok: true, plane: 'rost', rest: ['__proto__', 'x'], profiles: [] });
  });

  it('starts from the working folder’s .sechroom/executor.json as `executor run` does: flags override it, its root is that folder', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'rt-executor-json-'));
    mkdirSync(path.join(dir, '.sechroom'));
    const state = {
      schemaVersion: 1,
      instanceKey: 'codex-x',
      relayId: 'relay-1',
      laneId: 'lane-x',
      runtime: 'codex',
      connectorId: 'conn_9',
      capabilityKeys: ['ui'],
      ttlSeconds: 300,
      refreshAfterSeconds: 120,
      instanceId: 'ins_old',
    };
    writeFileSync(path.join(dir, '.sechroom', 'executor.json'), JSON.stringify(state));
    const plane = await resolveSechroomPlane({}, [...base, '--runtime', 'CODEX', '--allow-dirty-root'], dir);
    expect(plane).toMatchObject({ ok: true, plane: 'sechroom', rest: [] });
    const config = plane.ok ? plane.profiles[0]!.config.instance : null;
    expect(config).toMatchObject({
      instanceKey: 'codex-x',
      laneId: 'lane-x',
      relayId: 'relay-1',
      connectorId: 'conn_9',
      capabilityKeys: ['ui'],
      ttlSeconds: 300,
      refreshAfterSeconds: 120,
      root: dir,
    });
    const flagged = await resolveSechroomPlane({}, [...base, '--instance-key', 'codex-y', '--lane', 'lane-y', '--ttl', '600', '--root', '/elsewhere'], dir);
    expect(flagged.ok && flagged.profiles[0]!.config.instance).toMatchObject({
      instanceKey: 'codex-y',
      laneId: 'lane-y',
      ttlSeconds: 600,
      connectorId: 'conn_9',
      root: '/elsewhere',
    });

    // The seed's refusals, in its order: --runtime first, then the advertisement's runtime.
    expect(await resolveSechroomPlane({}, [...base, '--runtime', 'claude-code'], dir)).toEqual({ ok: false, message: RUNTIME_CODEX_ONLY });
    writeFileSync(path.join(dir, '.sechroom', 'executor.json'), JSON.stringify({ ...state, runtime: 'claude-code' }));
    expect(await resolveSechroomPlane({}, base, dir)).toEqual({ ok: false, message: stateRuntimeNotCodex('claude-code') });
    expect(stateRuntimeNotCodex('claude-code')).toBe("this checkout's executor advertisement is runtime 'claude-code' — reinstall with --runtime codex.");
    // Checked with zod: a damaged file says what is wrong with it.
    writeFileSync(path.join(dir, '.sechroom', 'executor.json'), '{"instanceKey": ');
    expect(await resolveSechroomPlane({}, base, dir)).toMatchObject({ ok: false, message: expect.stringMatching(/executor\.json is not valid JSON: /) });
    writeFileSync(path.join(dir, '.sechroom', 'executor.json'), JSON.stringify({ ...state, instanceKey: 7 }));
    expect(await resolveSechroomPlane({}, base, dir)).toEqual({
      ok: false,
      message: `${path.join(dir, '.sechroom', 'executor.json')}: instanceKey: instanceKey must be text`,
    });
  });

  it('--runtime is the host’s on the Rost plane; --allow-dirty-root is a Sechroom flag there', async () => {
    expect(await resolveSechroomPlane({}, ['--runtime', 'claude'])).toEqual({ ok: true, plane: 'rost', rest: ['--runtime', 'claude'], profiles: [] });
    expect(await resolveSechroomPlane({}, ['--allow-dirty-root'])).toEqual({
      ok: false,
      message: '--allow-dirty-root is a Sechroom flag: add --plane sechroom.',
    });
  });

  it('--once exits as the seed’s executor run: 1 only when the sign-in was refused; an abandoned task is 0, its line said', async () => {
    const run = async (outcome: { claimed: boolean; error: string | null }) => {
      const said: string[] = [];
      const code = await runSechroomOnce({ work: { runOne: () => Promise.resolve(outcome) } }, { printOnce: (l) => said.push(l) });
      return { code, said };
    };
    expect(await run({ claimed: true, error: null })).toEqual({ code: 0, said: [] });
    expect(await run({ claimed: true, error: 'the task was abandoned' })).toEqual({ code: 0, said: ['the task was abandoned'] });
    expect(await run({ claimed: false, error: 'auth expired: no' })).toEqual({ code: 1, said: ['auth expired: no'] });
  });
});
