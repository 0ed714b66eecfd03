import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { ExecutionOutcome, ExecutionRequest, UnitExecutor } from '../../main/core/exec/executor-port';
import { delivered, startHarness, type Harness } from './core-harness';

// The turn's tail: the result goes to the control plane the moment the runtime's outcome is
// known; the turn folder's removal (and the resume cache's write) go on beside it.

/** A runtime whose turn folder is still being removed when its outcome is known; the test says when the removal ends. */
class SlowCleanupExecutor implements UnitExecutor {
  release: () => void = () => undefined;
  private readonly removal = new Promise<void>((resolve) => (this.release = resolve));
  handedOver = 0;

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const taken = await (request.startAccepted ?? true);
    if (request.cleanupLater) {
      request.cleanupLater(this.removal);
      this.handedOver++;
    } else await this.removal;
    return {
      status: taken ? 'succeeded' : 'canceled',
      reason: taken ? 'exit' : 'canceled',
      summary: 'ok',
      exitCode: 0,
      outputTail: '',
      durationMs: 1,
      outputBytes: 2,
    };
  }

  async sweepStale(): Promise<number> {
    return 0;
  }
}

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('the result before the clean-up', () => {
  it('is accepted by the control plane while the turn folder is still being removed; the turn ends after the removal', async () => {
    const executor = new SlowCleanupExecutor();
    h = await startHarness({
      emulator: { config: { longPollMaxMs: 1_000 } },
      core: { executor, runtimeBinaries: { claude: process.execPath, codex: process.execPath } },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.runtimes !== null);

    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'tail' });
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 15_000 });
    expect(h.emu.admin.listResults({ unit_id: unit.id })).toMatchObject([{ status: 'succeeded' }]);
    expect(executor.handedOver).toBe(1);
    const finishedEarly = h.events.some((e) => e.event === 'turns:update' && e.payload.finished.some((t) => t.id === unit.id));
    expect(finishedEarly).toBe(false);

    executor.release();
    const done = await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id), 15_000);
    expect(done.finished.find((t) => t.id === unit.id)).toMatchObject({ phase: 'succeeded' });
    // The plane has the result; the runner may read its answer just after the turn ends: the row
    // then comes again as an in-place update (on a loaded machine the answer often lands after the removal).
    expect(await delivered(h, unit.id, 15_000)).toMatchObject({ phase: 'succeeded', delivery: { state: 'delivered' } });
  }, 30_000);
});
