import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHeadlessHost, type RunningHost } from '../e2e/headless-host';
import { gitOrigin, type GitOrigin } from './git-origin';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const TIMED = fileURLToPath(new URL('../fixtures/timed-runtime.mjs', import.meta.url));
const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));

let emu: RunningEmulator | null = null;
let dataDir = '';
afterEach(async () => {
  await emu?.close();
  emu = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the headless host stopped with SIGTERM', () => {
  it('lets the running turn finish and reports it before it exits', async () => {
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2000 } });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-quit-'));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'main/headless/cli.ts', '--port', '0', '--data-dir', dataDir, '--control-plane', emu.url, '--allow-file-secret-store'],
      { cwd: repoRoot, env: { ...process.env, RUNNER_TRAY_CLAUDE_BIN: TIMED, RUNNER_TRAY_QUIT_DRAIN_MS: '60000' }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const output: string[] = [];
    // The host prints the pairing code on its terminal; approve it as an operator would.
    const code = await new Promise<string>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        output.push(line);
        const m = /enter the code\s+([A-Z]{4}-[A-Z]{4})/.exec(line);
        if (m?.[1]) resolve(m[1]);
      });
    });
    emu.admin.approvePairing(code);
    await emu.admin.waitForEvent('runner.heartbeat', { timeoutMs: 10_000, since: 0 });

    const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:1500' });
    await emu.admin.waitForEvent((e) => e.type === 'unit.started' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 });
    child.kill('SIGTERM');

    expect(await exited).toBe(0);
    expect(output.join('\n')).toContain('waiting for 1 running turn(s)');
    // One line as it exits, saying what became of the turns and their results.
    expect(output.filter((l) => l.startsWith('Stopped:'))).toEqual(['Stopped: 1 turn finished; every result delivered.']);
    // Drained, not cut off: the turn reached its end and its result was delivered.
    expect(emu.admin.listResults({ unit_id: unit.id })).toMatchObject([{ status: 'succeeded', summary: 'finished at the checkpoint' }]);
  }, 30_000);
});

describe('the headless host with two profiles, quit with Ctrl-C', () => {
  let host: RunningHost | null = null;
  let repo: GitOrigin | null = null;
  afterEach(async () => {
    await host?.stop();
    repo?.cleanup();
    host = repo = null;
  });

  // The demo's shape: the Rost profile the flags name, and a Sechroom instance beside it
  // (a fleet config) whose task runs while the operator presses Ctrl-C.
  it('one SIGINT drains both profiles; a second within 3 s stops now, cancels the Sechroom task and exits 0', async () => {
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2000 } });
    repo = gitOrigin();
    const fleet = path.join(repo.dir, 'fleet.json');
    writeFileSync(fleet, JSON.stringify({ instances: [{ instanceKey: 'lab-codex', root: repo.root, pollInterval: 1 }] }));
    const minted = emu.sechroom.mintToken();
    host = await startHeadlessHost(
      ['--control-plane', emu.url, '--allow-file-secret-store', '--fleet-config', fleet, '--no-pr'],
      {
        RUNNER_TRAY_CLAUDE_BIN: TIMED,
        SECHROOM_BASE_URL: emu.sechroomUrl,
        SECHROOM_TENANT: minted.tenant,
        SECHROOM_TOKEN: minted.access_token,
        CODEX_BIN: APP_SERVER_STUB,
        CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'hang' }),
      },
      { drainMs: 60_000 },
    );
    const lines = host.output;
    const code = await waitForLine(lines, /enter the code\s+([A-Z]{4}-[A-Z]{4})/);
    emu.admin.approvePairing(code[1]!);
    await waitForLine(lines, /^\[Default\] Paired as /);
    const task = emu.sechroom.createTask({ title: 'Runs while we quit', objective: 'Hang until canceled.' });
    await waitForLine(lines, /^\[lab-codex\] Status: Working 1 of 1/);

    host.child.kill('SIGINT');
    await waitForLine(lines, /^Stopping \(SIGINT\): waiting for 1 running turn\(s\), up to 1 min\. Press Ctrl-C again within 3 s to stop now\.$/);
    // Both profiles show the drain: the one with the turn waits for it, the other only quits.
    await waitForLine(lines, /^\[Default\] Status: Stopping… — Quitting\.$/);
    await waitForLine(lines, /^\[lab-codex\] Status: Finishing 1 running turn — Finishing 1 running task\(s\) before quitting\.$/);
    host.child.kill('SIGINT');
    expect(await host.exited).toBe(0);

    // Stopped now, not drained: the task was canceled (not left running, not counted finished).
    expect(lines).toContain('Stopping now: canceling running turns.');
    expect(lines).not.toContainEqual(expect.stringMatching(/^Still waiting/));
    expect(lines.filter((l) => l.startsWith('Stopped:'))).toEqual([expect.stringMatching(/^Stopped: 0 turns finished, 1 turn canceled; /)]);
    // Its line says canceled (not failed), and the plane got no completion: the lease is left to expire.
    expect(lines).toContainEqual(expect.stringMatching(/^\[lab-codex\] Turn canceled in \d+ s: unit sechroom:\S+ \(codex\) — the runner was stopped — /));
    expect(lines).not.toContainEqual(expect.stringMatching(/Turn failed/));
    expect(emu.sechroom.listCompletions({ memory_id: task.memoryId })).toEqual([]);
    // Every status line names its profile; the host's combined one says it is the host's, and no profile's speaks of another.
    expect(lines.filter((l) => l.startsWith('Status: '))).toEqual([]);
    expect(lines).toContainEqual(expect.stringMatching(/^Host status \(2 profiles\): /));
    expect(lines.filter((l) => l.startsWith('[Default] Status: '))).not.toContainEqual(expect.stringMatching(/Sechroom/));
    expect(lines.join('\n')).not.toContain(minted.access_token);
    expect(emu.sechroom.getTask(task.memoryId).status).not.toBe('Completed');
  }, 90_000);
});

/** The first line of `lines` (read as they come) that matches. */
function waitForLine(lines: string[], pattern: RegExp, timeoutMs = 45_000): Promise<RegExpExecArray> {
  return vi.waitFor(
    () => {
      const match = lines.map((l) => pattern.exec(l)).find(Boolean);
      if (!match) throw new Error(`no line matching ${pattern} yet:\n${lines.join('\n')}`);
      return match;
    },
    { timeout: timeoutMs, interval: 50 },
  );
}
