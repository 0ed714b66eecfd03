// The headless host as a server runs it: `node dist/headless/cli.mjs` (built), paired
// with the emulator through a seed state file, with a stand-in runtime that stamps when
// its process began and when it exits (stamp-runtime.mjs). Measures, on the real process:
// start → first heartbeat (a restart with an identity on disk), idle RSS and CPU with no
// window, enqueue → runtime process, runtime exit → result accepted, the runner's share
// of a 1 s turn, and a window in Chromium with 10,000 history rows (window-cost.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { RunningEmulator } from '../../emulator';
import { CURRENT_SETTINGS_VERSION } from '../../main/core/settings/settings-migrations';
import { measureWindow, type NextAddress, type WindowCost, type WindowOptions } from './window-cost';
import { historyLog } from '../../main/core/work/turn-history-codec';
import type { TurnView } from '../../shared/turns';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const STAMP_RUNTIME = fileURLToPath(new URL('./stamp-runtime.mjs', import.meta.url));
const STREAM_RUNTIME = fileURLToPath(new URL('./stream-runtime.mjs', import.meta.url));
/** RUNNER_TRAY_BENCH_BUNDLE: another build of the host to measure (a before/after comparison); default the build's own. */
const HEADLESS_BUNDLE = z.string().min(1).optional().parse(process.env.RUNNER_TRAY_BENCH_BUNDLE) ?? path.join(repoRoot, 'dist', 'headless', 'cli.mjs');
const TICKS_PER_SECOND = 100; // USER_HZ on Linux
const HISTORY_ROWS = 10_000;

export interface HeadlessCost {
  startToHeartbeatMs: number[];
  idleRssMb: number;
  /** Percent of one core over the idle window. */
  idleCpuPercent: number;
  idleSeconds: number;
  /** Enqueue → the runtime process began. */
  pickupMs: number[];
  /** The runtime about to exit → the control plane accepted the result. */
  tailMs: number[];
  /** Runner time (everything but the runtime's own) as a share of a 1 s turn, in percent. */
  overheadPercent: number[];
  /** Chromium on the Turns view with 10,000 rows on disk: at load and during a stream of updates (null: not measured). */
  window: WindowCost | null;
}

const epochNow = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function cpuTicks(pid: number): number {
  // Fields after the command name (which may hold spaces, so split after its ')').
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
}

export interface Host {
  child: ChildProcess;
  exited: Promise<unknown>;
  address: Promise<string>;
}

/** `extra`: node's own flags before the bundle, and more environment (the soak's). */
export function startHost(dataDir: string, args: string[], runtime = STAMP_RUNTIME, extra: { nodeArgs?: string[]; env?: Record<string, string> } = {}): Host {
  const child = spawn(process.execPath, [...(extra.nodeArgs ?? []), HEADLESS_BUNDLE, '--data-dir', dataDir, '--port', '0', '--execute', ...args], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...extra.env,
      RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1',
      RUNNER_TRAY_QUIT_DRAIN_MS: '0',
      RUNNER_TRAY_CLAUDE_BIN: runtime,
      RUNNER_TRAY_CODEX_BIN: runtime,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const address = new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const url = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(line)?.[1];
      if (url) resolve(url);
    }),
  );
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)), address };
}

export async function stop(host: Host): Promise<void> {
  host.child.kill('SIGTERM');
  await host.exited;
}

/** Finished turns as the history log keeps them once compacted, in the store's own format (what the Turns view pages through). */
function writeHistory(dataDir: string): void {
  const base = Date.parse('2026-11-01T00:00:00Z');
  const turns = Array.from({ length: HISTORY_ROWS }, (_, i): TurnView => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    kind: 'turn_execution',
    runtime: 'claude',
    seat: null,
    buildRequestId: null,
    startedAt: new Date(base + i * 60_000).toISOString(),
    endedAt: new Date(base + i * 60_000 + 30_000).toISOString(),
    phase: 'succeeded',
    pid: null,
    tokens: { input: 100, output: 50 },
    costUsd: 0.01,
    outputTail: `output of turn ${i}\n`.repeat(20),
    summary: `summary number ${i}`,
    lease: null,
    reason: null,
    delivery: { state: 'delivered', attempts: 1, since: new Date(base + i * 60_000 + 30_000).toISOString(), reason: null },
  }));
  writeFileSync(path.join(dataDir, 'turn-history.jsonl'), historyLog(turns));
}

export async function runUnit(emu: RunningEmulator, runnerId: string, ms: number): Promise<{ pickup: number; tail: number; overhead: number }> {
  const enqueuedAt = epochNow();
  const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: `bench ms=${ms}`, target_runner_id: runnerId });
  await emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 30_000 });
  const acceptedAt = epochNow();
  const summary = emu.admin.listResults({ unit_id: unit.id })[0]?.summary ?? '';
  const stamps = /spawned=([\d.]+) exiting=([\d.]+)/.exec(summary);
  if (!stamps) throw new Error(`the stand-in runtime's stamps are not in the result: ${summary}`);
  const spawned = Number(stamps[1]);
  const exiting = Number(stamps[2]);
  const turn = exiting - spawned;
  return { pickup: spawned - enqueuedAt, tail: acceptedAt - exiting, overhead: ((acceptedAt - enqueuedAt - turn) / Math.max(turn, 1)) * 100 };
}

/** The host's window addresses: the one it printed at start, then a new one per SIGUSR2. */
function addresses(host: Host): NextAddress {
  let first = true;
  return async () => {
    if (first) {
      first = false;
      return host.address;
    }
    const next = new Promise<string>((resolve) =>
      createInterface({ input: host.child.stdout! }).on('line', (line) => {
        const found = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/.exec(line)?.[1];
        if (found) resolve(found);
      }),
    );
    host.child.kill('SIGUSR2');
    return next;
  };
}

/**
 * `pickups` units with no work (arrivals at a uniformly random moment of a second, the held
 * claim waiting): pickup and tail each; then `turns` one-second turns: the runner's share.
 */
export async function measureUnits(
  emu: RunningEmulator,
  runnerId: string,
  options: { pickups: number; turns: number },
): Promise<{ pickupMs: number[]; tailMs: number[]; overheadPercent: number[] }> {
  const pickupMs: number[] = [];
  const tailMs: number[] = [];
  for (let i = 0; i < options.pickups; i++) {
    await sleep(Math.random() * 1_000);
    const run = await runUnit(emu, runnerId, 0);
    pickupMs.push(run.pickup);
    tailMs.push(run.tail);
  }
  const overheadPercent: number[] = [];
  for (let i = 0; i < options.turns; i++) overheadPercent.push((await runUnit(emu, runnerId, 1_000)).overhead);
  return { pickupMs, tailMs, overheadPercent };
}

export async function measureHeadless(
  emu: RunningEmulator,
  options: { starts: number; idleMs: number; settleMs: number; pickups: number; turns: number; window: WindowOptions | null },
): Promise<HeadlessCost> {
  if (!existsSync(HEADLESS_BUNDLE)) throw new Error(`${HEADLESS_BUNDLE} is missing: run npm run build first`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-bench-headless-'));
  const runner = emu.admin.createRunner({ name: 'bench-headless' });
  const stateFile = path.join(dataDir, 'seed-state.json');
  writeFileSync(stateFile, JSON.stringify({ ...runner, app_url: emu.url }), { mode: 0o600 });
  const heartbeatOf = () => emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && e.data.runner_id === runner.runner_id, { timeoutMs: 30_000 });
  let host: Host | null = null;
  try {
    // First start: the identity moves from the seed's state file into the data folder.
    host = startHost(dataDir, ['--control-plane', emu.url, '--state-file', stateFile]);
    await heartbeatOf();
    // As a host that ran a while has it: its runtime detection on disk, which a restart answers
    // its first beat with (stopped before it is written, every start measured a full detection).
    while (!existsSync(path.join(dataDir, 'capabilities.json'))) await sleep(50);
    await stop(host);
    host = null;

    const startToHeartbeatMs: number[] = [];
    for (let i = 0; i < options.starts; i++) {
      if (host) await stop(host);
      const beat = heartbeatOf();
      const t0 = performance.now();
      host = startHost(dataDir, ['--control-plane', emu.url]);
      await beat;
      startToHeartbeatMs.push(performance.now() - t0);
    }
    if (!host) {
      const beat = heartbeatOf();
      host = startHost(dataDir, ['--control-plane', emu.url]);
      await beat;
    }
    const pid = host.child.pid!;
    // Start-up work (runtime detection, the first claim, the heap settling) is not idle.
    await sleep(options.settleMs);
    const ticks0 = cpuTicks(pid);
    const t0 = performance.now();
    await sleep(options.idleMs);
    const idleSeconds = (performance.now() - t0) / 1000;
    // An idle window of 0 measures no idle figures (NaN: rows left out).
    const idleCpuPercent = options.idleMs > 0 ? ((cpuTicks(pid) - ticks0) / TICKS_PER_SECOND / idleSeconds) * 100 : NaN;
    const idleRssMb = options.idleMs > 0 ? rssMb(pid) : NaN;

    const { pickupMs, tailMs, overheadPercent } = await measureUnits(emu, runner.runner_id, options);

    if (!options.window) return { startToHeartbeatMs, idleRssMb, idleCpuPercent, idleSeconds, pickupMs, tailMs, overheadPercent, window: null };
    // A window on a host with 10,000 finished turns on disk, running turns that stream
    // output `atOnce` at a time (the machine's limit lifted from one per core to that).
    await stop(host!);
    writeHistory(dataDir);
    writeFileSync(
      path.join(dataDir, 'settings.json'),
      JSON.stringify({ schemaVersion: CURRENT_SETTINGS_VERSION, settings: { machineMaxTurns: options.window.atOnce } }),
    );
    host = startHost(dataDir, ['--control-plane', emu.url, '--max-sessions', String(options.window.atOnce)], STREAM_RUNTIME);
    await heartbeatOf();
    const windowCost = await measureWindow(emu, runner.runner_id, addresses(host), options.window);
    return {
      startToHeartbeatMs,
      idleRssMb,
      idleCpuPercent,
      idleSeconds,
      pickupMs,
      tailMs,
      overheadPercent,
      window: windowCost,
    };
  } finally {
    if (host) await stop(host);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
