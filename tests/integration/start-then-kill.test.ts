import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const CRASH_HOST = fileURLToPath(new URL('./crash-host.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let h: Harness | null = null;
let emu: RunningEmulator | null = null;
afterEach(async () => {
  await h?.close();
  await emu?.close();
  h = null;
  emu = null;
});

describe('the host killed -9 right after the start call', () => {
  it('still reports the unit the server saw start, exactly once, after a restart', async () => {
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2000 } });
    h = await startHarness({ emu, core: { runtimeBinaries: { claude: FAKE, codex: FAKE } } });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
    await h.core.shutdown(0);

    const child = spawn(process.execPath, ['--import', 'tsx', CRASH_HOST, h.dataDir, emu.url, FAKE], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) => createInterface({ input: child.stdout! }).on('line', (line) => line === 'ready' && resolve()));
    const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    // The kill lands while the emulator handles the start: before the host has read its answer.
    await emu.admin.waitForEvent((e) => e.type === 'unit.started' && e.data.unit_id === unit.id, { timeoutMs: 20_000 });
    child.kill('SIGKILL');
    await exited;
    expect(emu.admin.listUnits({}).find((u) => u.id === unit.id)?.status).toBe('running');

    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    await emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 });
    expect(emu.admin.listResults({ unit_id: unit.id })).toMatchObject([{ status: 'failed', summary: 'runner restarted', idempotency_key: `${unit.id}:1` }]);

    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
    expect(emu.admin.listResults({ unit_id: unit.id })).toHaveLength(1);
  }, 40_000);
});
