// The crash tests' set-up: a data folder paired by an in-process host (then shut down), and
// a host in its own process over it (crash-host.ts) that a test can kill -9 mid-turn.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { PairingState } from '../../shared/runner';
import type { RunningEmulator } from '../../emulator';
import { startHarness, type Harness } from './core-harness';

export const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const CRASH_HOST = fileURLToPath(new URL('./crash-host.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The emulator's cadence for these tests: pairing polled each second, beats each second, claims held 2 s. */
export const CRASH_EMULATOR_CONFIG = { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2000 };

/** A harness paired with `emu` (its first heartbeat answered), then shut down: its data dir is ready for another process. */
export async function pairedDataDir(emu: RunningEmulator): Promise<Harness> {
  const harness = await startHarness({ emu, core: { runtimeBinaries: { claude: FAKE, codex: FAKE } } });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
  await harness.core.shutdown(0);
  return harness;
}

export interface CrashHost {
  child: ChildProcess;
  /** The host's stdout, line by line (`ready`, `spawned <unit> <pid>`, `running <unit> <pid>`). */
  lines: Interface;
  exited: Promise<unknown>;
  /** Resolves once the host says it is ready to claim. */
  ready: Promise<void>;
  /** Resolves with the pid the host launched for `unitId`; rejects if the host exits first. */
  running(unitId: string): Promise<number>;
}

/** crash-host.ts over the harness's data dir, with the fake runtime; `extra` arguments and `env` go to it. */
export function startCrashHost(harness: Harness, emu: RunningEmulator, extra: string[] = [], env: Record<string, string> = {}): CrashHost {
  const child = spawn(process.execPath, ['--import', 'tsx', CRASH_HOST, harness.dataDir, emu.url, FAKE, ...extra], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<void>((resolve) => lines.on('line', (line) => line === 'ready' && resolve()));
  const running = (unitId: string) =>
    new Promise<number>((resolve, reject) => {
      lines.on('line', (line) => {
        const m = /^running (\S+) (\d+)$/.exec(line);
        if (m && m[1] === unitId) resolve(Number(m[2]));
      });
      child.once('exit', (code) => reject(new Error(`crash host exited early (${code})`)));
    });
  return { child, lines, exited, ready, running };
}
