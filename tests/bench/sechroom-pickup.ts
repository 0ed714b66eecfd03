// Sechroom pickup: a task offered to a waiting, live instance → the scripted codex
// app-server (tests/stubs) receiving the task's `turn/start`. Once with the held offers
// read [v1] (the default), once against a Work Layer that holds no read (it ignores
// `waitMs`): the client then polls every 5 s, as the seed does. The real core in
// process against the emulator's Work Layer; tasks arrive uniform over the poll period.
// Alone: `npx tsx tests/bench/sechroom-pickup.ts [--quick]`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../../emulator';
import { percentile } from './bench-runner';
import { loggedAt, loggedCount, sleep, startSechroomBench } from './sechroom-bench-kit';

const POLL_S = 5;

/** Offer → turn/start latencies (ms) for one instance; `held` false: the server holds no offers read. */
export async function sechroomPickup(samples: number, held: boolean): Promise<number[]> {
  const emu = await startEmulator(held ? {} : { sechroom: { offerWaitMaxMs: 0 } });
  const bench = await startSechroomBench(emu, { turn: 'closeout-on-nudge', pollIntervalSeconds: POLL_S });
  const { h, log } = bench;
  await h.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'work' && p.runnerId !== null), 30_000);
  console.error(`bench: Sechroom instance live (${held ? 'held read' : 'no held read'})`);
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    await sleep(Math.random() * POLL_S * 1000);
    // A task's turn may be nudged to close out (a second turn/start): count from what is there now.
    const started = loggedAt(log, 'turn/start', loggedCount(log, 'turn/start') + 1);
    const offeredAt = performance.now();
    emu.sechroom.createTask({ title: `Bench ${i}`, objective: 'Close out.' });
    out.push((await started) - offeredAt);
    // The task settles (completion delivered) before the next offer: one instance, one task at a time.
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.plane === 'sechroom' && t.title === `Bench ${i}`), 30_000);
  }
  await bench.close();
  return out;
}

async function alone() {
  const quick = process.argv.includes('--quick');
  const held = await sechroomPickup(quick ? 10 : 30, true);
  const polled = await sechroomPickup(quick ? 5 : 10, false);
  const p50 = (xs: number[]) => percentile(xs, 50);
  console.log(
    `Sechroom offer → codex turn started p50: held read ${p50(held).toFixed(1)} ms, 5 s poll ${p50(polled).toFixed(0)} ms (n=${held.length}/${polled.length})`,
  );
  process.exit(0);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) void alone();
