// The rows of `npm run bench` for the built headless host, each beside its floor measured in
// the same run, and the bench's reference runner (reference-runner.mjs, not Runner Tray)
// beside the host's process rows. A part not measured (`--only`) gives no rows.
import { percentile } from './bench-runner';
import type { HeadlessCost } from './headless-cost';
import type { HistoryMemory } from './history-memory';
import type { initialJs } from './initial-js';
import type { ProcessFloor } from './process-floor';
import type { ReferenceCost } from './reference-cost';
import type { WindowCost } from './window-cost';

/** `met` null: a reference row, with no target of its own. */
export type Row = [measure: string, ours: string, noLongPoll: string, seed: string, ratio: string, target: string, met: boolean | null, why: string];

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
export const p = (v: number[], q: number) => percentile(v, q);
export const ms = (v: number) => `${fmt(v)} ms`;

/** The issue's targets for the host's process rows, as ratios to the floors of the same run. */
export const TARGETS = { pickupOverSpawn: 1.3, pickupP99OverP50: 3, tailOverExitMs: 3, sharePercent: 1.5 };

export interface HostMeasures {
  host: HeadlessCost | null;
  history: HistoryMemory | null;
  floor: { startMs: number; rssMb: number } | null;
  proc: ProcessFloor | null;
  reference: ReferenceCost | null;
  js: ReturnType<typeof initialJs> | null;
}

// A row of the built host: no other column, a floor or a spread where there is one.
const hostRow = (measure: string, value: string, note: string, target: string, met: boolean | null, why: string): Row => [
  measure,
  value,
  '',
  '',
  note,
  target,
  met,
  why,
];

function startRows(host: HeadlessCost, floor: { startMs: number; rssMb: number } | null): Row[] {
  const rows: Row[] = [];
  const start = p(host.startToHeartbeatMs, 50);
  if (Number.isFinite(start))
    rows.push(
      hostRow(
        'Headless start → first heartbeat (built host, p50)',
        ms(start),
        floor ? `floor: a bare node start ${ms(floor.startMs)} (${fmt(start / floor.startMs)}×)` : '',
        '≤ 250 ms',
        start <= 250,
        "node's own start, then loading and evaluating the bundle (its schemas are built on first use), then the logger, settings, secret store and sessions before the beat",
      ),
    );
  if (Number.isFinite(host.idleRssMb))
    rows.push(
      hostRow(
        'Headless idle RSS (one process, no window)',
        `${fmt(host.idleRssMb)} MB`,
        floor ? `floor: an idle node ${fmt(floor.rssMb)} MB` : '',
        '≤ 60 MB',
        host.idleRssMb <= 60,
        "more of node's own binary paged in for the built-ins the host uses (~10 MB over a bare node) and the heap of the code it loaded",
      ),
      hostRow(
        'Headless idle CPU (no window)',
        `${fmt(host.idleCpuPercent, 3)} % of a core`,
        `over ${fmt(host.idleSeconds, 0)} s`,
        '≤ 0.05 %',
        host.idleCpuPercent <= 0.05,
        "a one-off compacting GC (V8's memory reducer, ~8–11 s after start) falling in the window; steady idle wakes only for the heartbeat-time sample",
      ),
    );
  return rows;
}

function processRows(host: HeadlessCost | null, proc: ProcessFloor, reference: ReferenceCost | null): Row[] {
  const sandboxFloor = proc.sandboxedSpawnMs ?? proc.spawnMs;
  const exitFloor = proc.sandboxedExitMs ?? proc.exitMs;
  const exitFloors = `floor: the stand-in's own exit ${ms(proc.exitMs)}${proc.sandboxedExitMs !== null ? `, in bubblewrap ${ms(proc.sandboxedExitMs)}` : ''}${proc.allowlistExitMs !== null ? `, with its own network and the egress bridge ${ms(proc.allowlistExitMs)}` : ''}`;
  const floorName = proc.sandboxedSpawnMs !== null ? 'the bare bubblewrap spawn' : 'the bare spawn';
  const spawnFloor = `floor: spawn → the stand-in's start ${ms(proc.spawnMs)}${proc.sandboxedSpawnMs !== null ? `, in bubblewrap ${ms(proc.sandboxedSpawnMs)}` : ''}${proc.allowlistSpawnMs !== null ? `, with its own network and the egress bridge ${ms(proc.allowlistSpawnMs)}` : ''}`;
  const ref = (v: number[] | undefined) => (reference && v ? ` (reference runner ${ms(p(v, 50))})` : '');
  const rows: Row[] = [];
  if (reference)
    rows.push(
      hostRow(
        'Reference runner (tests/bench/reference-runner.mjs, not Runner Tray): pickup p50, enqueue → runtime process began',
        ms(p(reference.pickupMs, 50)),
        `p99 ${ms(p(reference.pickupMs, 99))}; a held claim, the stand-in spawned directly, no sandbox; floor: spawn → the stand-in's start ${ms(proc.spawnMs)}`,
        'reference',
        null,
        '',
      ),
      hostRow(
        'Reference runner: runtime exit → result accepted, p50',
        ms(p(reference.tailMs, 50)),
        `p99 ${ms(p(reference.tailMs, 99))}; floor: the stand-in's own exit ${ms(proc.exitMs)}`,
        'reference',
        null,
        '',
      ),
      hostRow('Reference runner: share of a 1 s turn, p50', `${fmt(p(reference.overheadPercent, 50))} %`, '', 'reference', null, ''),
    );
  if (!host || host.pickupMs.length === 0) return rows;
  const pickup50 = p(host.pickupMs, 50);
  const pickup99 = p(host.pickupMs, 99);
  const tail50 = p(host.tailMs, 50);
  const share50 = p(host.overheadPercent, 50);
  rows.push(
    hostRow(
      'Pickup p50, enqueue → runtime process began (built host)',
      ms(pickup50),
      `${fmt(pickup50 / sandboxFloor, 2)}× ${floorName}${ref(reference?.pickupMs)}; p99 ${ms(pickup99)} (${fmt(pickup99 / pickup50, 2)}× p50); ${spawnFloor}`,
      `≤ ${TARGETS.pickupOverSpawn}× ${floorName}, p99 ≤ ${TARGETS.pickupP99OverP50}× p50`,
      pickup50 <= TARGETS.pickupOverSpawn * sandboxFloor && pickup99 <= TARGETS.pickupP99OverP50 * pickup50,
      "the held claim's answer, the sandboxed command computed and its files written into the spare turn folder, the command handed over fd 3 to the bridge already running in bubblewrap (warm-sandbox.ts), the bridge's spawn and the stand-in's own start; on a shared machine a core is not always free for the host and the stand-in at once (the spread across runs in docs/benchmarks.md)",
    ),
    hostRow(
      'Runtime exit → result accepted, p50 (built host)',
      ms(tail50),
      `p99 ${ms(p(host.tailMs, 99))}; ${exitFloors}${ref(reference?.tailMs)}`,
      `≤ ${floorName.replace('spawn', 'exit')} + ${TARGETS.tailOverExitMs} ms`,
      tail50 <= exitFloor + TARGETS.tailOverExitMs,
      "the stand-in's own exit (the floor), then the outcome (output pipes, the process-group probe, the summary and redaction) and the loopback POST",
    ),
    hostRow(
      'The runner as a share of a 1 s turn, p50 (built host)',
      `${fmt(share50)} %`,
      reference ? `reference runner ${fmt(p(reference.overheadPercent, 50))} %` : '',
      `≤ ${TARGETS.sharePercent} %`,
      share50 <= TARGETS.sharePercent,
      'pickup and tail above, with their floors',
    ),
  );
  return rows;
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

export function hostRows(m: HostMeasures): Row[] {
  const rows: Row[] = m.host ? startRows(m.host, m.floor) : [];
  if (m.history)
    rows.push(
      hostRow(
        'Headless RSS added per 1,000 history rows on disk (idle, after a window listed the first page)',
        `${fmt(m.history.perThousandMb, 2)} MB`,
        `${fmt(p(m.history.emptyRssMb, 50))} MB with none, ${fmt(p(m.history.fullRssMb, 50))} MB with ${m.history.rows.toLocaleString('en')}`,
        '≤ +1 MB',
        m.history.perThousandMb <= 1,
        "rows keep only their list fields in memory (~0.8 kB a row: the head, the entry, its id); the rest is the old generation's slack (the young one no longer grows: docs/benchmarks.md)",
      ),
    );
  if (m.proc) rows.push(...processRows(m.host, m.proc, m.reference));
  if (m.host?.window) rows.push(...windowRows(m.host.window));
  if (m.js)
    rows.push(
      hostRow(
        'Initial JS of the window, gzipped',
        `${fmt(m.js.gzipBytes / 1024)} kB`,
        `${m.js.files.length} files`,
        '≤ 80 kB',
        m.js.gzipBytes / 1024 <= 80,
        'react-dom (about 60 kB) with the dashboard, Turns and pairing views in the first script; no zod, uPlot, Requests or Settings in it',
      ),
    );
  return rows;
}

export function printTable(rows: Row[]): string {
  const met = (r: Row) => (r[6] === null ? '—' : r[6] ? 'met' : `**short**: ${r[7]}`);
  const table = [
    '| measure | Runner Tray | server without long-poll | seed cadence | ratio / floor | target | met |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r[0]} | ${r[1]} | ${r[2]} | ${r[3]} | ${r[4]} | ${r[5]} | ${met(r)} |`),
  ].join('\n');
  console.log(`\n${table}\n`);
  return table;
}
