import { afterEach, describe, expect, it } from 'vitest';
import type { TurnsPage } from '../../shared/turns';
import { startEmulator, type RunningEmulator } from '../../emulator';
import type { Harness } from './core-harness';
import { CRASH_EMULATOR_CONFIG, FAKE, pairedDataDir, startCrashHost } from './crash-host-harness';

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
    emu = await startEmulator({ config: CRASH_EMULATOR_CONFIG });
    // Pair with an in-process host, then hand its data dir to a separate process.
    h = await pairedDataDir(emu);
    const host = startCrashHost(h, emu);
    const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    const runtimePid = await host.running(unit.id);
    orphans.push(runtimePid);
    host.child.kill('SIGKILL');
    await host.exited;
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
