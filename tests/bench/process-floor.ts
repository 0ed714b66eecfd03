// The floors of the two process rows, measured in the same run with the same stand-in
// runtime (stamp-runtime.mjs): from a spawn call to the stand-in's own start, directly and
// inside the bubblewrap sandbox turns get here, and from the stand-in's "exiting" stamp to
// its exit as its parent sees it (the runtime's own exit, which no runner can shorten).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandWorks, probeIsolation } from '../../main/core/exec/isolation';
import { bubblewrapArgs } from '../../main/core/exec/isolation/bubblewrap';
import { systemLayout } from '../../main/core/exec/isolation/isolate';
import { bridgedCommand } from '../../main/core/exec/isolation/egress/egress-plan';
import { startEgressProxy } from '../../main/core/exec/isolation/egress/proxy';
import { testLogging } from '../helpers/test-logger';
import { createCommandRunner } from '../../main/core/exec/process-runner';
import { percentile } from './bench-runner';

const STAMP_RUNTIME = fileURLToPath(new URL('./stamp-runtime.mjs', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const epochNow = () => performance.timeOrigin + performance.now();

export interface ProcessFloor {
  /** Spawn call → the stand-in's start, p50. */
  spawnMs: number;
  /** The same inside bubblewrap (null where it does not work). */
  sandboxedSpawnMs: number | null;
  /**
   * The same inside bubblewrap with the turn's own network: a network namespace whose way
   * out is the egress proxy, the in-sandbox bridge starting the stand-in (the default).
   */
  allowlistSpawnMs: number | null;
  /** The stand-in's "exiting" stamp → its exit seen by its parent, p50. */
  exitMs: number;
  /** The same inside bubblewrap, and with the turn's own network and the egress bridge (null where it does not work). */
  sandboxedExitMs: number | null;
  allowlistExitMs: number | null;
}

async function once(command: string, args: string[], cwd: string): Promise<{ start: number; exit: number }> {
  const t0 = epochNow();
  const child = spawn(command, args, { cwd, env: { PATH: '/usr/bin:/bin' }, stdio: ['pipe', 'pipe', 'inherit'], detached: true });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stdin.end('floor ms=0', 'utf8');
  const exitedAt = await new Promise<number>((resolve) => child.once('exit', () => resolve(epochNow())));
  await new Promise((resolve) => (child.stdout.readableEnded ? resolve(null) : child.stdout.once('end', resolve)));
  const stamps = /spawned=([\d.]+) exiting=([\d.]+)/.exec(out);
  if (!stamps) throw new Error(`the stand-in said no stamps: ${out.slice(0, 200)}`);
  return { start: Number(stamps[1]) - t0, exit: exitedAt - Number(stamps[2]) };
}

export async function processFloor(samples = 15): Promise<ProcessFloor> {
  const direct: { start: number; exit: number }[] = [];
  for (let i = 0; i < samples; i++) direct.push(await once(process.execPath, [STAMP_RUNTIME], repoRoot));
  let sandboxedSpawnMs: number | null = null;
  let allowlistSpawnMs: number | null = null;
  let sandboxedExitMs: number | null = null;
  let allowlistExitMs: number | null = null;
  const bwrap = process.platform === 'linux' ? await createCommandRunner().which('bwrap') : null;
  const tools = bwrap ? await probeIsolation({ platform: 'linux', which: async () => bwrap, works: commandWorks }) : null;
  if (tools?.level === 'bubblewrap' && tools.tool) {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-bench-floor-'));
    try {
      const args = bubblewrapArgs(
        {
          command: process.execPath,
          args: [STAMP_RUNTIME],
          cwd,
          env: {},
          home: '/nonexistent-home',
          writable: [cwd],
          readOnly: [repoRoot, path.dirname(process.execPath)],
          signIn: [],
          hidden: [],
        },
        systemLayout(),
      );
      const socket = path.join(cwd, 'egress.sock');
      const proxy = await startEgressProxy({ listen: { socketPath: socket }, allow: [], log: testLogging().log });
      const bridged = bridgedCommand([], process.execPath, [STAMP_RUNTIME], {});
      if (!bridged) throw new Error('no Node for the egress bridge');
      const ownNetwork = bubblewrapArgs(
        {
          command: bridged.command,
          args: bridged.args,
          cwd,
          env: bridged.env,
          home: '/nonexistent-home',
          writable: [cwd],
          readOnly: [repoRoot, path.dirname(process.execPath), bridged.readOnly],
          signIn: [],
          hidden: [],
          network: { socket },
        },
        systemLayout(),
      );
      // Interleaved, so a busy moment of the machine falls on both alike.
      const sandboxed: { start: number; exit: number }[] = [];
      const allowlisted: { start: number; exit: number }[] = [];
      for (let i = 0; i < samples; i++) {
        sandboxed.push(await once(tools.tool, args, cwd));
        allowlisted.push(await once(tools.tool, ownNetwork, cwd));
      }
      await proxy.close();
      const p50 = (runs: { start: number; exit: number }[], key: 'start' | 'exit') =>
        percentile(
          runs.map((r) => r[key]),
          50,
        );
      sandboxedSpawnMs = p50(sandboxed, 'start');
      allowlistSpawnMs = p50(allowlisted, 'start');
      sandboxedExitMs = p50(sandboxed, 'exit');
      allowlistExitMs = p50(allowlisted, 'exit');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }
  return {
    spawnMs: percentile(
      direct.map((d) => d.start),
      50,
    ),
    sandboxedSpawnMs,
    allowlistSpawnMs,
    sandboxedExitMs,
    allowlistExitMs,
    exitMs: percentile(
      direct.map((d) => d.exit),
      50,
    ),
  };
}
