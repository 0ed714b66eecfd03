import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHeadlessHost, type RunningHost } from '../e2e/headless-host';
import { gitOrigin, type GitOrigin } from './git-origin';

// A host started for the Sechroom plane alone runs its Sechroom profiles and nothing else:
// no empty Rost "Default" profile beside them, waiting to pair with a control plane nobody named.

const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));
const SIGNED_OUT = fileURLToPath(new URL('../fixtures/signed-out-runtime.mjs', import.meta.url));

let emu: RunningEmulator | null = null;
let host: RunningHost | null = null;
let repo: GitOrigin | null = null;
afterEach(async () => {
  await host?.stop();
  await emu?.close();
  repo?.cleanup();
  host = emu = repo = null;
});

/** One command over the host's WebSocket, as a script holding the token file's script token would send it. */
function invoke(running: RunningHost, command: string, input?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${running.port}/ws`, { headers: { authorization: `Bearer ${running.token}` } });
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, command, ...(input === undefined ? {} : { input }) })));
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as { type: string; id?: number; result?: unknown };
      if (frame.type !== 'result' || frame.id !== 1) return;
      ws.close();
      resolve(frame.result);
    });
    ws.on('error', reject);
  });
}

async function start(extra: (root: string) => string[]): Promise<RunningHost> {
  emu = await startEmulator({});
  repo = gitOrigin();
  const minted = emu.sechroom.mintToken();
  return startHeadlessHost(
    [
      '--plane',
      'sechroom',
      '--control-plane',
      emu.sechroomUrl,
      '--tenant',
      minted.tenant,
      '--allow-file-secret-store',
      '--token-file',
      'TOKEN_FILE',
      ...extra(repo.root),
    ],
    {
      SECHROOM_TOKEN: minted.access_token,
      CODEX_BIN: APP_SERVER_STUB,
    },
    { addressFrom: 'token-file' },
  );
}

describe('a headless host on the Sechroom plane only', () => {
  it('--plane sechroom lists its one Sechroom profile, not a Rost default beside it', async () => {
    host = await start((root) => ['--instance-key', 'codex-a', '--root', root]);
    const listed = (await invoke(host, 'profiles:list')) as { ok: boolean; value: { id: string; connector: string }[] };
    expect(listed.ok).toBe(true);
    expect(listed.value.map((p) => [p.id, p.connector])).toEqual([['codex-a', 'sechroom']]);
    expect(host.output.join('\n')).not.toMatch(/Not paired|\[Default\]/);
    // One profile: its lines carry no name, and no status is sent as a `default` profile's.
    await vi.waitFor(() => expect(host!.output).toContainEqual(expect.stringMatching(/Status: Idle — Live on lane codex-a/)), {
      timeout: 20_000,
      interval: 50,
    });
    expect(host.output.filter((l) => l.startsWith('['))).toEqual([]);
  }, 40_000);

  it('a fleet host lists one profile per instance, and a second start on the same data folder still no Rost one', async () => {
    emu = await startEmulator({});
    repo = gitOrigin();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'rt-sechroom-only-'));
    const fleet = path.join(dataDir, 'fleet.json');
    writeFileSync(
      fleet,
      JSON.stringify({
        instances: [
          { instanceKey: 'codex-a', root: repo.root },
          { instanceKey: 'codex-b', root: repo.root },
        ],
      }),
    );
    const args = [
      '--plane',
      'sechroom',
      '--control-plane',
      emu.sechroomUrl,
      '--tenant',
      emu.sechroom.mintToken().tenant,
      '--allow-file-secret-store',
      '--fleet-config',
      fleet,
      '--token-file',
      'TOKEN_FILE',
    ];
    const env = { SECHROOM_TOKEN: emu.sechroom.mintToken().access_token, CODEX_BIN: APP_SERVER_STUB };
    try {
      for (const round of [1, 2]) {
        host = await startHeadlessHost(args, env, { dataDir, addressFrom: 'token-file' });
        const listed = (await invoke(host, 'profiles:list')) as { ok: boolean; value: { id: string; connector: string }[] };
        expect({ round, profiles: listed.value.map((p) => [p.id, p.connector]) }).toEqual({
          round,
          profiles: [
            ['codex-a', 'sechroom'],
            ['codex-b', 'sechroom'],
          ],
        });
        // Every instance gets its own lines, each named; no line speaks for a profile the host does not have.
        await vi.waitFor(
          () => {
            for (const key of ['codex-a', 'codex-b'])
              expect(host!.output).toContainEqual(expect.stringMatching(new RegExp(`^\\[${key}\\] Status: Idle — Live on lane ${key}`)));
          },
          { timeout: 20_000, interval: 50 },
        );
        expect(host.output.filter((l) => l.startsWith('[') && !/^\[codex-[ab]\] /.test(l))).toEqual([]);
        await host.stop();
        // The seed's fleet supervisor lines (B12): all live, all stopping at the stop, each exit, then all exited.
        const fleetLines = host
          .errors()
          .split('\n')
          .filter((l) => /^\[fleet\]|\] exited \(/.test(l));
        expect({ round, fleetLines }).toEqual({
          round,
          fleetLines: [
            '[fleet] codex-a=live codex-b=live',
            '[fleet] codex-a=stopping codex-b=stopping',
            expect.stringMatching(/^\[codex-[ab]\] exited \(0\)$/),
            expect.stringMatching(/^\[fleet\] codex-(a=exited codex-b=stopping|a=stopping codex-b=exited)$/),
            expect.stringMatching(/^\[codex-[ab]\] exited \(0\)$/),
            '[fleet] codex-a=exited codex-b=exited',
          ],
        });
        host = null;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  // The Mode line said "runs work … with codex" while the detected codex was signed out and the profile claimed nothing.
  it('with the detected codex signed out, the Mode line says nothing is claimed until it is ready, as the status does', async () => {
    emu = await startEmulator({});
    repo = gitOrigin();
    const home = mkdtempSync(path.join(os.tmpdir(), 'rt-sechroom-home-'));
    const minted = emu.sechroom.mintToken();
    try {
      const args = ['--plane', 'sechroom', '--control-plane', emu.sechroomUrl, '--tenant', minted.tenant, '--allow-file-secret-store'];
      host = await startHeadlessHost([...args, '--instance-key', 'codex-a', '--root', repo.root], {
        SECHROOM_TOKEN: minted.access_token,
        CODEX_BIN: '',
        RUNNER_TRAY_CODEX_BIN: SIGNED_OUT,
        RUNNER_TRAY_CLAUDE_BIN: SIGNED_OUT,
        HOME: home,
      });
      const lines = host.output;
      expect(lines.filter((l) => l.startsWith('Mode: '))).toEqual([
        'Mode: runs work on this machine (the default; RUNNER_EXECUTE=0 or --no-execute turns it off), but codex is not ready (Codex: installed, not signed in — run `codex login`): nothing is claimed until it is.',
      ]);
      await vi.waitFor(
        () => expect(lines).toContainEqual(expect.stringMatching(/^Status: Idle · not claiming — Not claiming: Codex: installed, not signed in/)),
        {
          timeout: 20_000,
          interval: 50,
        },
      );
    } finally {
      await host?.stop();
      host = null;
      rmSync(home, { recursive: true, force: true });
    }
  }, 40_000);
});
