// `npm run bench -- --soak [--soak-minutes 120] [--warmup-minutes 10] [--heap-snapshots]`: "flat over hours".
// The built headless host with both planes (a Rost profile and a Sechroom instance beside
// it, `--fleet-config`), stand-in runtimes (tests/bench/stamp-runtime.mjs for Rost turns,
// the scripted codex app-server for Sechroom tasks), work arriving the whole time; its RSS
// and open file descriptors sampled every 10 s and, after the warm-up, their least-squares
// slope per hour (fds: each minute's fewest, as a running turn holds pipes for its while).
// With `--heap-snapshots`, a heap snapshot is written half-way through the warm-up and at the
// soak's end (`--heapsnapshot-signal`, into the folder printed) to diff: writing one grows the
// host's RSS by ~90 MB of allocator memory that later growth then reuses unseen, so the RSS
// slope of such a run does not count; take it from a run without.
// Targets: ≤ 2 MB/h and 0 fd/h. Printed, not written to docs/benchmarks.md.
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, statSync, watch, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { startEmulator } from '../../emulator';
import { gitOrigin } from '../integration/git-origin';
import { runUnit, startHost, stop } from './headless-cost';

const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));
const SAMPLE_MS = 10_000;
/** A Rost turn (0.5 s of the stand-in's time) every 5 s, a Sechroom task every 30 s. */
const ROST_EVERY_MS = 5_000;
const SECHROOM_EVERY_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const SoakArgsSchema = z.object({
  soakMinutes: z.coerce.number().positive().default(120),
  warmupMinutes: z.coerce.number().nonnegative().default(10),
  heapSnapshots: z.boolean(),
});

export function soakArgs(argv: string[]): z.infer<typeof SoakArgsSchema> {
  const value = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  return SoakArgsSchema.parse({
    soakMinutes: value('--soak-minutes'),
    warmupMinutes: value('--warmup-minutes'),
    heapSnapshots: argv.includes('--heap-snapshots'),
  });
}

interface Sample {
  atMs: number;
  rssMb: number;
  fds: number;
}

function sample(pid: number, t0: number): Sample {
  const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  return { atMs: performance.now() - t0, rssMb, fds: readdirSync(`/proc/${pid}/fd`).length };
}

/**
 * Per minute, the sample with the fewest fds: the idle baseline (a running turn holds its
 * pipes open for its while, which is not growth).
 */
function idleBaseline(samples: Sample[]): Sample[] {
  const minutes = new Map<number, Sample>();
  for (const s of samples) {
    const key = Math.floor(s.atMs / 60_000);
    const kept = minutes.get(key);
    if (!kept || s.fds < kept.fds) minutes.set(key, s);
  }
  return [...minutes.values()];
}

/** Least-squares slope of `value` over time, per hour. */
function slopePerHour(samples: Sample[], value: (s: Sample) => number): number {
  const n = samples.length;
  if (n < 2) return NaN;
  const mx = samples.reduce((a, s) => a + s.atMs, 0) / n;
  const my = samples.reduce((a, s) => a + value(s), 0) / n;
  const num = samples.reduce((a, s) => a + (s.atMs - mx) * (value(s) - my), 0);
  const den = samples.reduce((a, s) => a + (s.atMs - mx) ** 2, 0);
  return (num / den) * 3_600_000;
}

/** Asks the host for a heap snapshot and resolves with its file once written whole (it ends its JSON). */
function heapSnapshot(pid: number, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  return new Promise((resolve) => {
    const done = () => {
      const file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
      if (!file) return;
      const full = path.join(dir, file);
      const size = statSync(full).size;
      if (size === 0) return;
      const fd = openSync(full, 'r');
      const tail = Buffer.alloc(Math.min(16, size));
      readSync(fd, tail, 0, tail.length, size - tail.length);
      closeSync(fd);
      if (!tail.toString('utf8').trimEnd().endsWith('}')) return;
      watcher.close();
      resolve(full);
    };
    // Each write to the folder is an event: the file is checked then, not on a timer.
    const watcher = watch(dir, done);
    process.kill(pid, 'SIGUSR1');
  });
}

export async function soak(options: z.infer<typeof SoakArgsSchema>): Promise<void> {
  const totalMs = (options.soakMinutes + options.warmupMinutes) * 60_000;
  const emu = await startEmulator({ config: { longPollMaxMs: 60_000, nextHeartbeatMs: 30_000 } });
  const git = gitOrigin();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-soak-'));
  const runner = emu.admin.createRunner({ name: 'bench-soak' });
  const stateFile = path.join(dataDir, 'seed-state.json');
  writeFileSync(stateFile, JSON.stringify({ ...runner, app_url: emu.url }), { mode: 0o600 });
  const fleet = path.join(dataDir, 'fleet.json');
  writeFileSync(fleet, JSON.stringify({ instances: [{ instanceKey: 'soak-a', root: git.root, pollInterval: 5 }] }));
  const minted = emu.sechroom.mintToken({ ttl_ms: totalMs * 2 });
  const beat = emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && e.data.runner_id === runner.runner_id, { timeoutMs: 30_000 });
  const host = startHost(dataDir, ['--control-plane', emu.url, '--state-file', stateFile, '--fleet-config', fleet], undefined, {
    nodeArgs: ['--heapsnapshot-signal=SIGUSR1', `--diagnostic-dir=${dataDir}`],
    env: { SECHROOM_BASE_URL: emu.sechroomUrl, SECHROOM_TENANT: minted.tenant, SECHROOM_TOKEN: minted.access_token, CODEX_BIN: APP_SERVER_STUB },
  });
  const pid = host.child.pid!;
  await beat;
  console.log(`soak: host ${pid} up, ${options.warmupMinutes} min warm-up then ${options.soakMinutes} min measured; snapshots in ${dataDir}`);
  const t0 = performance.now();
  const samples: Sample[] = [];
  const sampler = setInterval(() => samples.push(sample(pid, t0)), SAMPLE_MS);
  let rostTurns = 0;
  let tasks = 0;
  let stopping = false;
  const rost = (async () => {
    while (!stopping) {
      await runUnit(emu, runner.runner_id, 500);
      rostTurns++;
      await sleep(ROST_EVERY_MS);
    }
  })();
  const sechroom = setInterval(() => {
    emu.sechroom.createTask({ title: `Soak ${tasks++}`, objective: 'Close out.' });
  }, SECHROOM_EVERY_MS);
  const snapshots: string[] = [];
  let completed = 0;
  try {
    await sleep((options.warmupMinutes * 60_000) / 2);
    if (options.heapSnapshots) snapshots.push(await heapSnapshot(pid, dataDir));
    await sleep(Math.max(0, t0 + totalMs - performance.now()));
    clearInterval(sampler);
    if (options.heapSnapshots) snapshots.push(await heapSnapshot(pid, dataDir));
    completed = emu.sechroom.listCompletions().length;
  } finally {
    stopping = true;
    clearInterval(sampler);
    clearInterval(sechroom);
    await rost;
    await stop(host);
    await emu.close();
    git.cleanup();
  }
  const measured = samples.filter((s) => s.atMs >= options.warmupMinutes * 60_000);
  const first = measured[0];
  const last = measured.at(-1);
  console.log(
    JSON.stringify(
      {
        minutes: { warmup: options.warmupMinutes, measured: options.soakMinutes },
        work: { rostTurns, sechroomTasksOffered: tasks, sechroomCompletions: completed },
        rssMb: { first: first?.rssMb, last: last?.rssMb, slopePerHour: Number(slopePerHour(measured, (s) => s.rssMb).toFixed(2)), target: '≤ 2' },
        fds: { first: first?.fds, last: last?.fds, idleSlopePerHour: Number(slopePerHour(idleBaseline(measured), (s) => s.fds).toFixed(2)), target: '0' },
        heapSnapshots: snapshots,
      },
      null,
      2,
    ),
  );
  writeFileSync(path.join(dataDir, 'soak-samples.json'), JSON.stringify(samples));
}
