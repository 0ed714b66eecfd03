import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import type { Harness } from './core-harness';
import { CRASH_EMULATOR_CONFIG, FAKE, pairedDataDir, startCrashHost } from './crash-host-harness';

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
    emu = await startEmulator({ config: CRASH_EMULATOR_CONFIG });
    h = await pairedDataDir(emu);
    const { child, exited, ready } = startCrashHost(h, emu);
    await ready;
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
