// The reference rows of `npm run bench`: the bench's minimal runner (reference-runner.mjs,
// not Runner Tray) on the same emulator with the same stand-in runtime, measured exactly as
// the built host is (headless-cost.ts's runUnit), so the host's pickup, tail and share of a
// turn are read beside the best a runner can do on this wire and this machine.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunningEmulator } from '../../emulator';
import { runUnit } from './headless-cost';

const REFERENCE_RUNNER = fileURLToPath(new URL('./reference-runner.mjs', import.meta.url));
const STAMP_RUNTIME = fileURLToPath(new URL('./stamp-runtime.mjs', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ReferenceCost {
  /** Enqueue → the runtime process began. */
  pickupMs: number[];
  /** The runtime about to exit → the control plane accepted the result. */
  tailMs: number[];
  /** Runner time as a share of a 1 s turn, in percent. */
  overheadPercent: number[];
}

export async function measureReference(emu: RunningEmulator, options: { pickups: number; turns: number }): Promise<ReferenceCost> {
  const runner = emu.admin.createRunner({ name: 'bench-reference' });
  const held = emu.admin.waitForEvent((e) => e.type === 'claim.held' && e.data.runner_id === runner.runner_id, { timeoutMs: 30_000 });
  const child = spawn(process.execPath, [REFERENCE_RUNNER], {
    env: { ...process.env, BENCH_URL: emu.url, BENCH_RUNNER_ID: runner.runner_id, BENCH_RUNNER_SECRET: runner.runner_secret, BENCH_RUNTIME: STAMP_RUNTIME },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    await Promise.race([held, exited.then(() => Promise.reject(new Error('the reference runner exited before its first claim')))]);
    const pickupMs: number[] = [];
    const tailMs: number[] = [];
    for (let i = 0; i < options.pickups; i++) {
      // As for the host: arrivals at a uniformly random moment of a second, the claim held.
      await sleep(Math.random() * 1_000);
      const run = await runUnit(emu, runner.runner_id, 0);
      pickupMs.push(run.pickup);
      tailMs.push(run.tail);
    }
    const overheadPercent: number[] = [];
    for (let i = 0; i < options.turns; i++) overheadPercent.push((await runUnit(emu, runner.runner_id, 1_000)).overhead);
    return { pickupMs, tailMs, overheadPercent };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}
