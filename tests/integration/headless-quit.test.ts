import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const TIMED = fileURLToPath(new URL('../fixtures/timed-runtime.mjs', import.meta.url));

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
