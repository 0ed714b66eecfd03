import { spawn } from 'node:child_process';

import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { TurnsPage } from '../../shared/turns';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const CRASH_HOST = fileURLToPath(new URL('./crash-host.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let h: Harness | null = null;
let emu: RunningEmulator | null = null;
const orphans: number[] = [];
afterEach(async () => {
  for (const pid of orphans.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await h?.close();
  await emu?.close();
  h = null;
  emu = null;
});

describe('the host killed -9 mid-turn', () => {
  it('reports the interrupted unit failed ("runner restarted") exactly once after a restart', async () => {
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2000 } });
    // Pair with an in-process host, then hand its data dir to a separate process.
    h = await startHarness({ emu, core: { runtimeBinaries: { claude: FAKE, codex: FAKE } } });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
    await h.core.shutdown(0);

    const child = spawn(process.execPath, ['--import', 'tsx', CRASH_HOST, h.dataDir, emu.url, FAKE], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    const runtimePid = await new Promise<number>((resolve, reject) => {
      lines.on('line', (line) => {
        const m = /^running (\S+) (\d+)$/.exec(line);
        if (m && m[1] === unit.id) resolve(Number(m[2]));
      });
      child.once('exit', (code) => reject(new Error(`crash host exited early (${code})`)));
    });
    orphans.push(runtimePid);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(emu.admin.listResults({ unit_id: unit.id })).toHaveLength(0);

    // A new host over the same data dir: the journal says what was running.
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    await emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 });
    const results = emu.admin.listResults({ unit_id: unit.id });
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ status: 'failed', summary: 'runner restarted', idempotency_key: `${unit.id}:1` });
    // The Turns view shows it too, not only Activity.
    const turns = await h.invoke<TurnsPage>('turns:list');
    expect(turns.history.filter((t) => t.id === unit.id)).toMatchObject([
      { phase: 'failed', reason: 'interrupted by a restart: reported failed', runtime: 'claude' },
    ]);

    // And only once: a second restart reports nothing more.
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
    expect(emu.admin.listResults({ unit_id: unit.id })).toHaveLength(1);
  });
});
