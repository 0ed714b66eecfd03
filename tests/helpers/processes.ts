import { readFileSync } from 'node:fs';
import { isRunning, snapshotProcesses } from '../../main/core/exec/process-tree';

/** No event exists for the death of a process that is not our child: poll, bounded. Returns the pids still running. */
export async function gone(list: number[], timeoutMs = 15_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = list;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = (await Promise.all(left.map(async (pid) => ((await isRunning(pid)) ? pid : null)))).filter((p): p is number => p !== null);
  }
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
