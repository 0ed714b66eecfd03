// `npm run bench`: the runner against the seed's cadence on one emulator, the same runner
// against a server without long-poll, and the built headless host as a server runs it.
// Every row prints its target and whether it is met; writes docs/benchmarks.md.
// Needs `npm run build` first (the host's bundle and the page). `--quick` shrinks samples.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startBenchRunner, type BenchRunner } from './bench-runner';
import { measureHeadless } from './headless-cost';
import { fmt, hostRows, ms, p, printTable, type Row } from './host-rows';
import { measureHistoryMemory } from './history-memory';
import { liveRow, measureLiveLines } from './live-lines';
import { initialJs } from './initial-js';
import { processFloor } from './process-floor';
import { measureReference } from './reference-cost';
import { sechroomPickup } from './sechroom-pickup';
import { soak, soakArgs } from './soak';
import { measureTurnMemoryRuns, turnMemoryRow } from './turn-memory';
import { rostCancel, sechroomCancel } from './plane-cancel';

const quick = process.argv.includes('--quick');
// `--host`: only the built headless host's rows (and the initial JS), printed and not written to the doc.
// `--only start` (start → first heartbeat, idle RSS and CPU) or `--only pickup` (the reference
// runner and the host's process rows, with their floors) or `--only live` (a running turn's
// line printed → on screen, in Chromium) or `--only memory` (a turn printing 10 MB, the host's
// RSS before and after): those rows alone, printed, not written.
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : process.argv.includes('--host') ? 'host' : null;
if (only !== null && only !== 'host' && only !== 'start' && only !== 'pickup' && only !== 'live' && only !== 'memory')
  throw new Error(`--only takes host, start, pickup, live or memory, not ${only}`);
const LIVE_RUNS = quick ? 1 : 3;
const SEED = { heartbeatMs: 30_000, interactiveClaimMs: 1_000 };
const N_PICKUP_OURS = quick ? 30 : 100;
const N_PICKUP_POLLED = quick ? 10 : 30;
const N_UNITS = quick ? 30 : 100;
// Whole 60 s long-polls: the carried heartbeat makes one request per long-poll.
const IDLE_MS = quick ? 60_000 : 120_000;
const N_RECLAIM = quick ? 30 : 100;
const HEADLESS = quick
  ? { starts: 3, settleMs: 10_000, idleMs: 20_000, pickups: 10, turns: 3, window: { loads: 3, streamTurns: 8, atOnce: 4, streamTurnMs: 1_500 } }
  : { starts: 5, settleMs: 15_000, idleMs: 60_000, pickups: 30, turns: 5, window: { loads: 5, streamTurns: 16, atOnce: 4, streamTurnMs: 1_500 } };
/** Runs of the 10 MB turn each way (with the service unit's allocator settings, and without). */
const TURN_MEMORY_RUNS = quick ? 3 : 5;
const HISTORY_MEMORY = quick ? { runs: 1, settleMs: 10_000 } : { runs: 3, settleMs: 15_000 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Enqueue → the runner hands the unit to its runtime; arrivals uniform over the seed's 1 s poll period. */
async function pickup(emu: RunningEmulator, runner: BenchRunner, samples: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const done = new Promise<number>((resolve) => {
      runner.executor.onExecute = (_id, at) => resolve(at);
    });
    await sleep(Math.random() * SEED.interactiveClaimMs);
    const enqueuedAt = performance.now();
    emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'bench', target_runner_id: runner.runnerId });
    out.push((await done) - enqueuedAt);
  }
  runner.executor.onExecute = () => undefined;
  return out;
}

/** Enqueues `units` turns for the runner and resolves when it has finished them all. */
async function runUnits(emu: RunningEmulator, runner: BenchRunner, units: number): Promise<void> {
  const ids = new Set<string>();
  for (let i = 0; i < units; i++) ids.add(emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'bench', target_runner_id: runner.runnerId }).id);
  await new Promise<void>((resolve) => {
    const off = runner.harness.core.host.subscribe((batch) => {
      for (const e of batch) if (e.event === 'turns:update') for (const t of e.payload.finished) ids.delete(t.id);
      if (ids.size === 0) {
        off();
        resolve();
      }
    });
  });
}

async function throughput(emu: RunningEmulator, runner: BenchRunner, units: number): Promise<number> {
  runner.executor.durationMs = 1_000;
  const started = performance.now();
  await runUnits(emu, runner, units);
  runner.executor.durationMs = 0;
  return (performance.now() - started) / 1000;
}

/**
 * A runner at its session limit with work queued: from each turn's end (the runtime hands
 * back its outcome, which frees the slot) to the next claim request leaving.
 */
async function reclaim(emu: RunningEmulator, runner: BenchRunner, samples: number): Promise<number[]> {
  const ends: number[] = [];
  runner.executor.onEnd = (_id, at) => ends.push(at);
  await runUnits(emu, runner, samples + 1);
  runner.executor.onEnd = () => undefined;
  return ends.slice(0, -1).map((end) => (runner.claimTimes.find((t) => t > end) ?? NaN) - end);
}

async function idleRequests(runners: BenchRunner[], ms: number): Promise<number[]> {
  const before = runners.map((r) => r.requestCount());
  await sleep(ms);
  return runners.map((r, i) => ((r.requestCount() - before[i]!) * 3_600_000) / ms);
}

/** The floors: a bare Node process's start to exit (p50 of 5), and its resident memory idling. */
async function nodeFloor(): Promise<{ startMs: number; rssMb: number }> {
  const starts: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await new Promise((resolve) => spawn(process.execPath, ['-e', '0']).once('exit', resolve));
    starts.push(performance.now() - t0);
  }
  const startMs = p(starts, 50);
  const idle = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1e9)']);
  await sleep(1_000);
  const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${idle.pid}/status`, 'utf8'))?.[1]) / 1024;
  idle.kill();
  return { startMs, rssMb };
}

async function main() {
  if (process.argv.includes('--soak')) {
    await soak(soakArgs(process.argv));
    process.exit(0);
  }
  if (only === 'live') {
    printTable([liveRow(measureLiveLines(LIVE_RUNS))]);
    process.exit(0);
  }
  if (only === 'memory') {
    printTable([turnMemoryRow(await measureTurnMemoryRuns(TURN_MEMORY_RUNS))]);
    process.exit(0);
  }
  const emu = await startEmulator({ config: { caps: { tenant: 32, project: 32, defaultAccount: 1 }, longPollMaxMs: 60_000, nextHeartbeatMs: 30_000 } });
  if (only) {
    const part =
      only === 'host' ? HEADLESS : only === 'start' ? { ...HEADLESS, pickups: 0, turns: 0, window: null } : { ...HEADLESS, starts: 0, idleMs: 0, window: null };
    const floor = only === 'pickup' ? null : await nodeFloor();
    const proc = only === 'start' ? null : await processFloor();
    const reference = only === 'start' ? null : await measureReference(emu, HEADLESS);
    const host = await measureHeadless(emu, part);
    const history = only === 'host' ? await measureHistoryMemory(emu, HISTORY_MEMORY) : null;
    await emu.close();
    printTable(hostRows({ host, history, floor, proc, reference, js: only === 'host' ? initialJs() : null }));
    process.exit(0);
  }
  // A server without long-poll: its heartbeat offers no `claim.long_poll_max_ms`.
  const plain = await startEmulator({ config: { caps: { tenant: 16, project: 16, defaultAccount: 1 }, longPollMaxMs: 0, nextHeartbeatMs: 30_000 } });
  // The fake runtime spawns no process: the machine-wide cap (one turn per core by default) is lifted to the 8 sessions measured.
  const ours = await startBenchRunner(emu, 'ours', 'adaptive', { ...SEED, maxSessions: 8, machineMaxTurns: 8 });
  const ours1 = await startBenchRunner(emu, 'ours-1', 'adaptive', { ...SEED, maxSessions: 1 });
  const seed = await startBenchRunner(emu, 'seed', 'seed', { ...SEED, maxSessions: 1 });
  const noLp = await startBenchRunner(plain, 'no-long-poll', 'adaptive', { ...SEED, maxSessions: 8, machineMaxTurns: 8 });
  console.log(`bench: four runners paired on ${emu.url} and ${plain.url}${quick ? ' (quick)' : ''}`);

  console.log(`bench: idle requests over ${IDLE_MS / 1000} s…`);
  const [oursIdle = NaN, noLpIdle = NaN, seedIdle = NaN] = await idleRequests([ours, noLp, seed], IDLE_MS);
  console.log('bench: pickup latency…');
  const oursPickup = await pickup(emu, ours, N_PICKUP_OURS);
  const noLpPickup = await pickup(plain, noLp, N_PICKUP_POLLED);
  const seedPickup = await pickup(emu, seed, N_PICKUP_POLLED);
  console.log('bench: re-claim after a slot frees…');
  const reclaimMs = await reclaim(emu, ours1, N_RECLAIM);
  console.log(`bench: ${N_UNITS} units of 1 s each, 8 sessions and 1 session…`);
  const [oursWall, noLpWall] = await Promise.all([throughput(emu, ours, N_UNITS), throughput(plain, noLp, N_UNITS)]);
  const [ours1Wall, seedWall] = await Promise.all([throughput(emu, ours1, N_UNITS), throughput(emu, seed, N_UNITS)]);
  for (const r of [ours, ours1, seed, noLp]) await r.harness.close();
  await plain.close();
  console.log('bench: Sechroom offer → codex turn started, the held offers read and a server that holds none…');
  const sechroomHeld = await sechroomPickup(N_PICKUP_POLLED, true);
  const sechroomPolled = await sechroomPickup(quick ? 5 : 10, false);
  console.log('bench: plane cancel → runtime told, on a held read and by the lease heartbeat alone…');
  const cancels = { rost: await rostCancel(quick ? 8 : 20, true), rostBeat: await rostCancel(quick ? 5 : 10, false) };
  const sechroomCancels = { held: await sechroomCancel(quick ? 8 : 20, true), beat: await sechroomCancel(quick ? 5 : 10, false) };

  console.log('bench: the built headless host (start-up, idle, pickup to the runtime process, the window)…');
  const floor = await nodeFloor();
  const proc = await processFloor();
  const reference = await measureReference(emu, HEADLESS);
  const host = await measureHeadless(emu, HEADLESS);
  console.log('bench: the built host with 10,000 history rows on disk against none…');
  const history = await measureHistoryMemory(emu, HISTORY_MEMORY);
  await emu.close();
  console.log("bench: a running turn's lines printed → on screen (the live-transcript browser test)…");
  const live = measureLiveLines(LIVE_RUNS);
  console.log('bench: a turn printing 10 MB, the host before and after it…');
  const turnMemory = await measureTurnMemoryRuns(TURN_MEMORY_RUNS);
  const js = initialJs();

  const rows: Row[] = [
    // prettier-ignore
    ['Pickup p50, enqueue → runtime handed the unit (in-process)', ms(p(oursPickup, 50)), ms(p(noLpPickup, 50)), ms(p(seedPickup, 50)), `${fmt(p(seedPickup, 50) / p(oursPickup, 50))}× faster`, '≤ 30 ms', p(oursPickup, 50) <= 30, 'the held claim was answered late'],
    // prettier-ignore
    ['Pickup p99 (in-process)', ms(p(oursPickup, 99)), ms(p(noLpPickup, 99)), ms(p(seedPickup, 99)), `${fmt(p(seedPickup, 99) / p(oursPickup, 99))}× faster`, '≤ 150 ms', p(oursPickup, 99) <= 150, 'the held claim was answered late'],
    // prettier-ignore
    ['Control-plane requests per idle hour', fmt(oursIdle, 0), fmt(noLpIdle, 0), fmt(seedIdle, 0), `${fmt(seedIdle / oursIdle)}× fewer`, '≤ 60 [v1]', oursIdle <= 60, 'a heartbeat of its own beside the held claim'],
    // prettier-ignore
    ['Re-claim p50, a turn ends at the session limit → next claim request leaves', ms(p(reclaimMs, 50)), '', '', `p99 ${ms(p(reclaimMs, 99))}`, '≤ 2 ms', p(reclaimMs, 50) <= 2, 'the finished turn is recorded before its slot frees'],
    // prettier-ignore
    [`${N_UNITS} units × 1 s, wall time (8 sessions vs the seed's 1)`, `${fmt(oursWall)} s`, `${fmt(noLpWall)} s`, `${fmt(seedWall)} s`, `${fmt(seedWall / oursWall)}× throughput`, '≥ 6×', seedWall / oursWall >= 6, 'claims or reports too slow'],
    // prettier-ignore
    [`${N_UNITS} units × 1 s, wall time (1 session each)`, `${fmt(ours1Wall)} s`, '', `${fmt(seedWall)} s`, `${fmt(seedWall / ours1Wall, 2)}× throughput`, '≥ 1× (no slower at equal sessions)', seedWall / ours1Wall >= 1, 'slower than the seed at equal sessions'],
    // prettier-ignore
    ['Sechroom offer → codex turn started p50 (in-process, scripted app-server)', ms(p(sechroomHeld, 50)), ms(p(sechroomPolled, 50)), '', `${fmt(p(sechroomPolled, 50) / p(sechroomHeld, 50))}× faster than the 5 s poll`, '≤ 50 ms', p(sechroomHeld, 50) <= 50, 'the held offers read was answered late'],
    // prettier-ignore
    ['Rost plane cancel → runtime stopped p50 (every slot busy; 5 s lease heartbeat)', ms(p(cancels.rost, 50)), `heartbeat only ${ms(p(cancels.rostBeat, 50))}`, '', `${fmt(p(cancels.rostBeat, 50) / p(cancels.rost, 50))}× faster`, '≤ 1 s', p(cancels.rost, 50) <= 1_000, 'the cancel waited for the lease heartbeat'],
    // prettier-ignore
    ['Sechroom plane cancel → turn/interrupt p50 (5 s lease heartbeat)', ms(p(sechroomCancels.held, 50)), `heartbeat only ${ms(p(sechroomCancels.beat, 50))}`, '', `${fmt(p(sechroomCancels.beat, 50) / p(sechroomCancels.held, 50))}× faster`, '≤ 1 s', p(sechroomCancels.held, 50) <= 1_000, 'the cancel waited for the lease heartbeat'],
    ...hostRows({ host, history, floor, proc, reference, js }),
    liveRow(live),
    turnMemoryRow(turnMemory),
  ];
  const table = printTable(rows);

  const docPath = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));
  const doc = readFileSync(docPath, 'utf8');
  const stamp = `Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores, Node ${process.versions.node}${quick ? ', **quick mode (small samples)**' : ''}.`;
  const start = doc.indexOf('<!-- table -->');
  const end = doc.indexOf('<!-- /table -->');
  if (start < 0 || end < 0) throw new Error('docs/benchmarks.md has no <!-- table --> … <!-- /table --> markers');
  writeFileSync(docPath, `${doc.slice(0, start)}<!-- table -->\n${stamp}\n\n${table}\n${doc.slice(end)}`);
  console.log('bench: wrote the table into docs/benchmarks.md');
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
