// `npm run bench`: the runner against the seed's cadence, on one emulator, in one run.
// Every figure is a ratio against a baseline measured in the same process. Writes
// docs/benchmarks.md. `--quick` shrinks the sample sizes for a smoke run.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { percentile, startBenchRunner, type BenchRunner } from './bench-runner';

const quick = process.argv.includes('--quick');
const SEED = { heartbeatMs: 30_000, interactiveClaimMs: 1_000 };
const N_PICKUP_OURS = quick ? 40 : 200;
const N_PICKUP_SEED = quick ? 10 : 40;
const N_UNITS = quick ? 40 : 200;
const IDLE_MS = quick ? 30_000 : 120_000;

async function pickup(emu: RunningEmulator, runner: BenchRunner, samples: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < samples; i++) {
    const done = new Promise<number>((resolve) => {
      runner.executor.onExecute = (_id, at) => resolve(at);
    });
    // Let the runner settle into its idle claiming state (as a unit arriving at a random moment would find it).
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 300));
    const enqueuedAt = performance.now();
    emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'bench', target_runner_id: runner.runnerId });
    out.push((await done) - enqueuedAt);
  }
  runner.executor.onExecute = () => undefined;
  return out;
}

async function throughput(emu: RunningEmulator, runner: BenchRunner, units: number): Promise<number> {
  runner.executor.durationMs = 1_000;
  const ids = new Set<string>();
  const started = performance.now();
  for (let i = 0; i < units; i++) ids.add(emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'bench', target_runner_id: runner.runnerId }).id);
  let left = ids.size;
  await new Promise<void>((resolve) => {
    const off = runner.harness.core.host.subscribe((batch) => {
      for (const e of batch) {
        if (e.event !== 'turns:update') continue;
        for (const t of e.payload.finished) if (ids.delete(t.id)) left--;
      }
      if (left === 0) {
        off();
        resolve();
      }
    });
  });
  runner.executor.durationMs = 0;
  return (performance.now() - started) / 1000;
}

async function idleRequests(runners: BenchRunner[], ms: number): Promise<number[]> {
  const before = runners.map((r) => r.requestCount());
  await new Promise((r) => setTimeout(r, ms));
  return runners.map((r, i) => ((r.requestCount() - before[i]!) * 3_600_000) / ms);
}

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');

async function main() {
  const emu = await startEmulator({ config: { caps: { tenant: 16, project: 16, defaultAccount: 1 }, longPollMaxMs: 25_000, nextHeartbeatMs: 30_000 } });
  // The fake runtime spawns no process: the machine-wide cap (one turn per core by default) is lifted to the 8 sessions measured.
  const ours = await startBenchRunner(emu, 'ours', 'adaptive', { ...SEED, maxSessions: 8, machineMaxTurns: 8 });
  const seed = await startBenchRunner(emu, 'seed', 'seed', { ...SEED, maxSessions: 1 });
  console.log(`bench: two runners paired on ${emu.url}${quick ? ' (quick)' : ''}`);

  // (b) first, while both are fresh and idle.
  console.log(`bench: idle requests over ${IDLE_MS / 1000} s…`);
  const [oursIdle = NaN, seedIdle = NaN] = await idleRequests([ours, seed], IDLE_MS);

  console.log('bench: pickup latency…');
  const oursPickup = await pickup(emu, ours, N_PICKUP_OURS);
  const seedPickup = await pickup(emu, seed, N_PICKUP_SEED);

  console.log(`bench: ${N_UNITS} units of 1 s each…`);
  const oursWall = await throughput(emu, ours, N_UNITS);
  const seedWall = await throughput(emu, seed, N_UNITS);

  await ours.harness.close();
  await seed.harness.close();
  await emu.close();

  const p = (v: number[], q: number) => percentile(v, q);
  const rows = [
    [
      'Pickup latency p50 (enqueue → runtime started)',
      `${fmt(p(oursPickup, 50))} ms`,
      `${fmt(p(seedPickup, 50))} ms`,
      `${fmt(p(seedPickup, 50) / p(oursPickup, 50))}× faster`,
      '≤ 30 ms',
      p(oursPickup, 50) <= 30,
    ],
    [
      'Pickup latency p99',
      `${fmt(p(oursPickup, 99))} ms`,
      `${fmt(p(seedPickup, 99))} ms`,
      `${fmt(p(seedPickup, 99) / p(oursPickup, 99))}× faster`,
      '≤ 150 ms',
      p(oursPickup, 99) <= 150,
    ],
    [
      'Control-plane requests per idle hour',
      fmt(oursIdle, 0),
      fmt(seedIdle, 0),
      `${fmt(seedIdle / oursIdle)}× fewer`,
      '≥ 10× fewer',
      seedIdle / oursIdle >= 10,
    ],
    [
      `${N_UNITS} units × 1 s runtime, wall time`,
      `${fmt(oursWall)} s (8 sessions)`,
      `${fmt(seedWall)} s (serial)`,
      `${fmt(seedWall / oursWall)}× throughput`,
      '≥ 6×',
      seedWall / oursWall >= 6,
    ],
  ] as const;
  const table = [
    '| measure | Runner Tray | seed cadence (baseline) | ratio | target | met |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r[0]} | ${r[1]} | ${r[2]} | ${r[3]} | ${r[4]} | ${r[5] ? 'yes' : '**no**'} |`),
  ].join('\n');
  console.log(`\n${table}\n`);

  const doc = `# Benchmarks

\`npm run bench\` (\`tests/bench/run.ts\`) runs two real runner cores side by side against one
emulator on loopback, in one process, and reports every figure as a ratio against the
baseline measured in the same run:

- **Runner Tray**: long-poll claims when the server offers them (\`wait_ms\` up to
  \`long_poll_max_ms\` = 25 s), a claim the moment a slot frees, up to \`max_sessions\` = 8.
- **Seed cadence (baseline)**: what \`rost runner serve --execute\` does: a heartbeat every
  30 s, a full claim right after it, an \`interactive_only\` claim every 1 s between
  heartbeats, and one unit at a time (it runs a unit to its end before claiming again).

Both use the same fake runtime, which spawns no process and takes a fixed time (0 s for
pickup, 1 s for throughput), so the figures measure the runner, not process start-up.
"Runtime started" is the moment the runner hands the unit to its runtime. Idle requests
are counted on each runner's own HTTP client over ${IDLE_MS / 1000} s of idling (both at once)
and scaled to an hour. Samples: pickup ${N_PICKUP_OURS} (ours) and ${N_PICKUP_SEED} (seed) turn
executions enqueued one at a time at random moments; throughput ${N_UNITS} turn executions
enqueued at once.

Last run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${os.cpus().length} cores, Node ${process.versions.node}${quick ? ', **quick mode (small samples)**' : ''}.

${table}

The baseline's pickup depends on where in its 1 s interactive poll a unit lands; its
idle cost is dominated by those polls (3,600 an hour). Long-poll replaces them with one
held request per 25 s, answered the moment a unit is assignable.
`;
  writeFileSync(fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url)), doc);
  console.log('bench: wrote docs/benchmarks.md');
  process.exit(0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
