// The reference rows of `npm run bench`: the bench's minimal runner (reference-runner.mjs,
// not Runner Tray) on the same emulator with the same stand-in runtime, measured exactly as
// the built host is (headless-cost.ts's measureUnits), so the host's pickup, tail and share of a
// turn are read beside the best a runner can do on this wire and this machine.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { RunningEmulator } from '../../emulator';
import { measureUnits } from './headless-cost';

const REFERENCE_RUNNER = fileURLToPath(new URL('./reference-runner.mjs', import.meta.url));
const STAMP_RUNTIME = fileURLToPath(new URL('./stamp-runtime.mjs', import.meta.url));

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
    // Measured as the host is.
    return await measureUnits(emu, runner.runner_id, options);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}
