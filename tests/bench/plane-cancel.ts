// Plane cancel → the runtime stopped: the control plane cancels a running unit (Rost:
// admin cancel; Sechroom: a lease cancel request) and the clock runs until the runtime is
// told (Rost: the fake runtime's abort; Sechroom: the scripted app-server's turn/interrupt).
// Once with cancel notices on a held read [v1] (the default), once against a plane without
// them, where the next lease heartbeat brings the cancel. Both with a LEASE_S lease heartbeat,
// cancels arriving uniform over it. The real core in process against the emulator.
// Alone: `npx tsx tests/bench/plane-cancel.ts [--quick]`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../emulator';
import { percentile, startBenchRunner } from './bench-runner';
import { loggedAt, loggedCount, sleep, startSechroomBench } from './sechroom-bench-kit';

const LEASE_S = 5;

/** Rost, one session (every slot busy: the notices-only read): cancel → the runtime's signal aborted (ms). */
export async function rostCancel(samples: number, notices: boolean): Promise<number[]> {
  const emu = await startEmulator({
    config: { leaseHeartbeatMs: LEASE_S * 1000, claimCancelNotices: notices, caps: { tenant: 8, project: 8, defaultAccount: 8 } },
  });
  const runner = await startBenchRunner(emu, notices ? 'notices' : 'beat-only', 'adaptive', { heartbeatMs: 30_000, interactiveClaimMs: 1_000, maxSessions: 1 });
  runner.executor.durationMs = 600_000;
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = new Promise<string>((resolve) => (runner.executor.onExecute = (id) => resolve(id)));
    const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'bench', target_runner_id: runner.runnerId });
    await started;
    await sleep(Math.random() * LEASE_S * 1000);
    const ended = new Promise<number>((resolve) => (runner.executor.onEnd = (_id, at) => resolve(at)));
    const canceledAt = performance.now();
    emu.admin.cancelUnit(unit.id);
    out.push((await ended) - canceledAt);
    await runner.harness.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id), 30_000);
  }
  await runner.harness.close();
  await emu.close();
  return out;
}

/** Sechroom, one instance running a hanging turn: lease cancel request → the app-server's turn/interrupt (ms). */
export async function sechroomCancel(samples: number, notices: boolean): Promise<number[]> {
  const emu = await startEmulator({ sechroom: { leaseNotices: notices } });
  const bench = await startSechroomBench(emu, { turn: 'hang', pollIntervalSeconds: 1, heartbeatIntervalSeconds: LEASE_S });
  const { h, log } = bench;
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    // The turn is cancelable once the app-server has it: wait for its turn/start.
    const started = loggedAt(log, 'turn/start', loggedCount(log, 'turn/start') + 1);
    const task = emu.sechroom.createTask({ title: `Cancel ${i}`, objective: 'Hang.' });
    await started;
    await sleep(Math.random() * LEASE_S * 1000);
    const lease = emu.sechroom.listLeases({ memory_id: task.memoryId })[0]!;
    const told = loggedAt(log, 'turn/interrupt', loggedCount(log, 'turn/interrupt') + 1);
    const canceledAt = performance.now();
    emu.sechroom.cancelLease(lease.id, 'bench');
    out.push((await told) - canceledAt);
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.plane === 'sechroom' && t.title === `Cancel ${i}`), 30_000);
  }
  await bench.close();
  return out;
}

async function alone() {
  const quick = process.argv.includes('--quick');
  const p50 = (xs: number[]) => percentile(xs, 50);
  for (const [plane, run] of [
    ['Rost', rostCancel],
    ['Sechroom', sechroomCancel],
  ] as const) {
    const held = await run(quick ? 8 : 20, true);
    const beat = await run(quick ? 5 : 10, false);
    console.log(
      `${plane} plane cancel → runtime told p50: held read ${p50(held).toFixed(1)} ms, lease heartbeat (${LEASE_S} s) ${p50(beat).toFixed(0)} ms, ${(p50(beat) / p50(held)).toFixed(0)}× (n=${held.length}/${beat.length})`,
    );
  }
  process.exit(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) void alone();
