import { vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { isRunning, snapshotProcesses } from '../../main/core/exec/process-tree';

/** No event exists for the death of a process that is not our child: vitest polls, bounded. Returns the pids still running. */
export async function gone(list: number[], timeoutMs = 15_000): Promise<number[]> {
  let left = list;
  const check = async () => {
    left = (await Promise.all(left.map(async (pid) => ((await isRunning(pid)) ? pid : null)))).filter((p): p is number => p !== null);
    return left.length === 0;
  };
  await vi.waitUntil(check, { timeout: timeoutMs, interval: 100 }).catch(() => undefined);
  return left;
}

/** The parent-death launchers (lifeline.ts) a process started: their script names its own variable (Linux: /proc). */
export async function launchersOf(parent: number): Promise<number[]> {
  return (await snapshotProcesses())
    .filter((p) => p.ppid === parent && !p.zombie)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p.pid}/cmdline`, 'latin1').includes('RUNNER_TRAY_LIFELINE_UNSET');
      } catch {
        return false;
      }
    })
    .map((p) => p.pid);
}
