// `npm run bench`: the runner against the seed's cadence on one emulator, the same runner
// against a server without long-poll, and the built headless host as a server runs it.
// Every row prints its target and whether it is met; writes docs/benchmarks.md.
// Needs `npm run build` first (the host's bundle and the page). `--quick` shrinks samples.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { percentile, startBenchRunner, type BenchRunner } from './bench-runner';
import { measureHeadless, type HeadlessCost } from './headless-cost';
import { measureHistoryMemory, type HistoryMemory } from './history-memory';
import { initialJs } from './initial-js';
import { processFloor, type ProcessFloor } from './process-floor';
import { sechroomPickup } from './sechroom-pickup';
import { rostCancel, sechroomCancel } from './plane-cancel';
import type { WindowCost } from './window-cost';

const quick = process.argv.includes('--quick');
// `--host`: only the built headless host's rows (and the initial JS), printed and not written to the doc.
const hostOnly = process.argv.includes('--host');
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

/** The floors: a bare Node process's start to exit, and its resident memory idling. */
async function nodeFloor(): Promise<{ startMs: number; rssMb: number }> {
  const t0 = performance.now();
  await new Promise((resolve) => spawn(process.execPath, ['-e', '0']).once('exit', resolve));
  const startMs = performance.now() - t0;
  const idle = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 1e9)']);
  await sleep(1_000);
  const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${idle.pid}/status`, 'utf8'))?.[1]) / 1024;
  idle.kill();
  return { startMs, rssMb };
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const p = (v: number[], q: number) => percentile(v, q);
const ms = (v: number) => `${fmt(v)} ms`;

type Row = [measure: string, ours: string, noLongPoll: string, seed: string, ratio: string, target: string, met: boolean, why: string];

function hostRows(
  host: HeadlessCost,
  history: HistoryMemory,
  floor: { startMs: number; rssMb: number },
  proc: ProcessFloor,
  js: ReturnType<typeof initialJs>,
): Row[] {
  const spawnFloor = `floor: spawn → the stand-in's start ${ms(proc.spawnMs)}${proc.sandboxedSpawnMs !== null ? `, in bubblewrap ${ms(proc.sandboxedSpawnMs)}` : ''}${proc.allowlistSpawnMs !== null ? `, with its own network and the egress bridge ${ms(proc.allowlistSpawnMs)}` : ''}`;
  // A row of the built host: no other column, a floor or a spread where there is one.
  const hostRow = (measure: string, value: string, note: string, target: string, met: boolean, why: string): Row => [
    measure,
    value,
    '',
    '',
    note,
    target,
    met,
    why,
  ];
  return [
    hostRow(
      'Headless start → first heartbeat (built host, p50)',
      ms(p(host.startToHeartbeatMs, 50)),
      `floor: a bare node start ${ms(floor.startMs)}`,
      '≤ 250 ms',
      p(host.startToHeartbeatMs, 50) <= 250,
      "node's own start, then loading the bundle (~120 ms: zod and the schemas built at import, compiling ~1 MB of JS, Node's built-ins), then the logger, settings, secret store and sessions (~60 ms) before the beat",
    ),
    hostRow(
      'Headless idle RSS (one process, no window)',
      `${fmt(host.idleRssMb)} MB`,
      `floor: an idle node ${fmt(floor.rssMb)} MB`,
      '≤ 60 MB',
      host.idleRssMb <= 60,
      "more of node's own binary paged in for the built-ins the host uses (~10 MB over a bare node) and a 12 MB heap (the code and ~2,800 zod schemas built at import) against a bare node's 4 MB",
    ),
    hostRow(
      'Headless idle CPU (no window)',
      `${fmt(host.idleCpuPercent, 3)} % of a core`,
      `over ${fmt(host.idleSeconds, 0)} s`,
      '≤ 0.05 %',
      host.idleCpuPercent <= 0.05,
      "a one-off compacting GC (V8's memory reducer, ~8–11 s after start) falling in the window; steady idle wakes only for the heartbeat-time sample",
    ),
    hostRow(
      'Headless RSS added per 1,000 history rows on disk (idle, after a window listed the first page)',
      `${fmt(history.perThousandMb, 2)} MB`,
      `${fmt(p(history.emptyRssMb, 50))} MB with none, ${fmt(p(history.fullRssMb, 50))} MB with ${history.rows.toLocaleString('en')}`,
      '≤ +1 MB',
      history.perThousandMb <= 1,
      'rows keep only their list fields in memory (~0.9 MB per 1,000); the rest is the young generation that parsing 10,000 log heads in one burst grows, never shrunk while idle (docs/benchmarks.md)',
    ),
    hostRow(
      'Pickup p50, enqueue → runtime process began (built host)',
      ms(p(host.pickupMs, 50)),
      `p99 ${ms(p(host.pickupMs, 99))}; ${spawnFloor}`,
      '≤ 5 ms (p99 ≤ 15 ms)',
      p(host.pickupMs, 50) <= 5 && p(host.pickupMs, 99) <= 15,
      "the claim's answer reaches the runner ~3–4 ms after the enqueue; the turn folder and the sandboxed command ~3–4 ms; the spawn call blocks ~2–3 ms (forking the host); then bubblewrap, the egress bridge's Node start (the turn's own network, docs/egress.md) and the stand-in's own start (the floor). The journal fsync and the start call run beside these (the prompt waits for the start); a sandbox started ahead of the claim is not done",
    ),
    hostRow(
      'Runtime exit → result accepted, p50',
      ms(p(host.tailMs, 50)),
      `p99 ${ms(p(host.tailMs, 99))}; floor: the stand-in's own exit ${ms(proc.exitMs)}`,
      '≤ 5 ms',
      p(host.tailMs, 50) <= 5,
      "the stand-in's own exit (Node's teardown, the floor) is most of it; then ~1–2 ms to the outcome and the loopback POST (~3 ms); the turn folder's removal and the resume cache are off the path",
    ),
    hostRow(
      'The runner as a share of a 1 s turn, p50',
      `${fmt(p(host.overheadPercent, 50))} %`,
      '',
      '≤ 1 %',
      p(host.overheadPercent, 50) <= 1,
      'pickup and tail above, with their floors',
    ),
    ...windowRows(host.window),
    hostRow(
      'Initial JS of the window, gzipped',
      `${fmt(js.gzipBytes / 1024)} kB`,
      `${js.files.length} files`,
      '≤ 80 kB',
      js.gzipBytes / 1024 <= 80,
      'react-dom (about 60 kB) with the dashboard, Turns and pairing views in the first script; no zod, uPlot, Requests or Settings in it',
    ),
  ];
}

function windowRows(win: WindowCost): Row[] {
  const { stream } = win;
  const streamNote = `${stream.turns} turns, ${stream.atOnce} at once, ${fmt(stream.turnMs / 1000)} s each, over ${fmt(stream.seconds)} s`;
  // prettier-ignore
  return [
    ['Data on screen (Turns view, 10,000 rows on disk), p50: navigation → first row painted', ms(p(win.dataOnScreenMs, 50)), '', '', `min ${ms(Math.min(...win.dataOnScreenMs))}`, '≤ 300 ms', p(win.dataOnScreenMs, 50) <= 300, 'the first script and its start-up'],
    ['Longest task at load', ms(win.longestLoadTaskMs), '', '', '', '≤ 50 ms', win.longestLoadTaskMs <= 50, "the first script's evaluation and first render"],
    ['Longest task on updates (Turns view open, turns streaming output)', win.longestUpdateTaskMs > 0 ? ms(win.longestUpdateTaskMs) : 'none over 50 ms', '', '', streamNote, '≤ 50 ms', win.longestUpdateTaskMs <= 50, 'rendering a batch of updates'],
    ['Largest frame gap in the Turns view during those updates', ms(win.largestFrameGapMs), '', '', `${win.lateFrames} of ${win.frames} frames over 20 ms after the last`, '≤ 33 ms', win.largestFrameGapMs <= 33, win.longestUpdateTaskMs > 0 ? 'a long task in the page (the row above)' : 'a skipped frame with no long task in the page: the browser waited for a core (the runtimes and the host share them)'],
  ];
}

function printTable(rows: Row[]): string {
  const table = [
    '| measure | Runner Tray | server without long-poll | seed cadence | ratio / floor | target | met |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r[0]} | ${r[1]} | ${r[2]} | ${r[3]} | ${r[4]} | ${r[5]} | ${r[6] ? 'met' : `**short**: ${r[7]}`} |`),
  ].join('\n');
  console.log(`\n${table}\n`);
  return table;
}

async function main() {
  const emu = await startEmulator({ config: { caps: { tenant: 32, project: 32, defaultAccount: 1 }, longPollMaxMs: 60_000, nextHeartbeatMs: 30_000 } });
  if (hostOnly) {
    const floor = await nodeFloor();
    const proc = await processFloor();
    const host = await measureHeadless(emu, HEADLESS);
    const history = await measureHistoryMemory(emu, HISTORY_MEMORY);
    await emu.close();
    printTable(hostRows(host, history, floor, proc, initialJs()));
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
  const host = await measureHeadless(emu, HEADLESS);
  console.log('bench: the built host with 10,000 history rows on disk against none…');
  const history = await measureHistoryMemory(emu, HISTORY_MEMORY);
  await emu.close();
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
    ...hostRows(host, history, floor, proc, js),
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
