// What the Sechroom bench rows share: the real core in process with one Sechroom instance
// against the emulator's Work Layer, its codex the scripted app-server (tests/stubs), whose
// requests are logged to a file in the instance's root; and a wait for the n-th request of
// a method in that log, timed at the moment it lands.
import { existsSync, mkdirSync, readFileSync, watch } from 'node:fs';
import path from 'node:path';
import type { RunningEmulator } from '../../emulator';
import type { Harness } from '../integration/core-harness';
import { gitOrigin } from '../integration/git-origin';
import { startSechroomHost } from '../integration/sechroom-host';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface SechroomBench {
  h: Harness;
  /** The app-server stub's request log. */
  log: string;
  close(): Promise<void>;
}

/** One instance ('bench-a', profile 'work') on `emu`, its app-server playing `turn` (the stub's scenario), its requests logged. */
export async function startSechroomBench(
  emu: RunningEmulator,
  options: { turn: string; pollIntervalSeconds: number; heartbeatIntervalSeconds?: number },
): Promise<SechroomBench> {
  const git = gitOrigin();
  // In the root: the app-server runs in the turn's sandbox, where only its working tree is writable.
  const log = path.join(git.root, '.bench', 'app-server.jsonl');
  mkdirSync(path.dirname(log), { recursive: true });
  const host = await startSechroomHost({
    emu,
    git,
    scenario: { turn: options.turn },
    runtimeEnv: () => ({ STUB_LOG: log }),
    instance: {
      instanceKey: 'bench-a',
      pollIntervalSeconds: options.pollIntervalSeconds,
      ...(options.heartbeatIntervalSeconds ? { heartbeatIntervalSeconds: options.heartbeatIntervalSeconds } : {}),
    },
    configure: { deliver: false },
  });
  return {
    h: host.h,
    log,
    async close() {
      await host.close();
      await emu.close();
    },
  };
}

/** How many requests of `method` the stub's log holds. */
export const loggedCount = (log: string, method: string) => (existsSync(log) ? readFileSync(log, 'utf8').split(`"method":"${method}"`).length - 1 : 0);

/** Resolves at the moment the stub's log holds `n` requests of `method` (performance.now()). */
export function loggedAt(log: string, method: string, n: number): Promise<number> {
  return new Promise((resolve) => {
    const check = () => {
      if (loggedCount(log, method) < n) return;
      const at = performance.now();
      clearInterval(fallback);
      watcher.close();
      resolve(at);
    };
    const watcher = watch(path.dirname(log), check);
    // fs.watch may miss a change; a coarse check keeps the bench from hanging (it is not the measure).
    const fallback = setInterval(check, 250);
    check();
  });
}
