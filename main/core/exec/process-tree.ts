import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import treeKill from 'tree-kill';
import type { Clock } from '../base/ports';

/**
 * Stopping a runtime's whole process tree.
 *
 * On POSIX the runtime is spawned detached, so it leads its own process group and every
 * descendant that does not start a new session stays in that group: signalling the group
 * reaches grandchildren even after their parent died and they were re-parented. Descendants
 * that did leave the group (setsid) are found by parent pid in a process snapshot taken
 * while their parent is still alive. On Windows `tree-kill` (taskkill /T /F) does the work.
 *
 * Liveness ignores zombies: in containers whose PID 1 never reaps, a killed orphan stays a
 * zombie forever, and `kill(pid, 0)` still succeeds on it although it runs nothing.
 */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  zombie: boolean;
}

export interface TerminateResult {
  /** Every pid that was signalled (the root included when it was still running). */
  signaled: number[];
  /** Pids still running after SIGKILL and the verification window (should be empty). */
  survivors: number[];
  /** Whether SIGKILL was needed because something outlived SIGTERM and the grace period. */
  escalated: boolean;
}

const POLL_MS = 25;
const POLL_MAX_MS = 100;
const VERIFY_MS = 500;

async function snapshotLinux(): Promise<ProcessInfo[]> {
  const names = await readdir('/proc');
  const rows = await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n))
      .map(async (n) => {
        try {
          return parseProcStat(await readFile(`/proc/${n}/stat`, 'utf8'));
        } catch {
          return null; // exited while we were reading
        }
      }),
  );
  return rows.filter((r): r is ProcessInfo => r !== null);
}

/** `/proc/<pid>/stat`: "pid (comm) state ppid pgrp …"; comm may hold spaces and parens. */
export function parseProcStat(text: string): ProcessInfo | null {
  const close = text.lastIndexOf(')');
  const pid = Number.parseInt(text, 10);
  const fields = text.slice(close + 2).split(' ');
  const ppid = Number(fields[1]);
  const pgid = Number(fields[2]);
  if (close < 0 || !Number.isInteger(pid) || !Number.isInteger(ppid) || !Number.isInteger(pgid)) return null;
  return { pid, ppid, pgid, zombie: fields[0] === 'Z' || fields[0] === 'X' };
}

function snapshotPs(): Promise<ProcessInfo[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat='], { timeout: 2_000, maxBuffer: 8 * 1024 * 1024 }, (error, stdout) => {
      if (error) return resolve([]);
      const rows: ProcessInfo[] = [];
      for (const line of String(stdout).split('\n')) {
        const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
        if (pid && ppid && pgid) rows.push({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), zombie: (stat ?? '').startsWith('Z') });
      }
      resolve(rows);
    });
  });
}

/** All processes of the machine (POSIX); empty when the table cannot be read. */
export async function snapshotProcesses(platform = process.platform): Promise<ProcessInfo[]> {
  if (platform === 'linux') {
    try {
      return await snapshotLinux();
    } catch {
      // /proc not mounted: fall back to ps
    }
  }
  return snapshotPs();
}

/**
 * The live members of the tree rooted at `root`: the root's process group, the root's
 * descendants by parent pid, and their descendants, transitively. After the root has been
 * reaped its pid is free, so only its group (which keeps the number reserved) identifies it.
 */
export function treeMembers(all: readonly ProcessInfo[], root: number, rootReaped: boolean): number[] {
  const members = new Set<number>();
  for (const p of all) if (p.pgid === root || (!rootReaped && p.pid === root)) members.add(p.pid);
  if (!rootReaped) members.add(root);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (!members.has(p.pid) && members.has(p.ppid)) {
        members.add(p.pid);
        grew = true;
      }
    }
  }
  const zombies = new Set(all.filter((p) => p.zombie).map((p) => p.pid));
  const present = new Set(all.map((p) => p.pid));
  return [...members].filter((pid) => present.has(pid) && !zombies.has(pid) && pid !== process.pid);
}

/** Whether `pid` runs (zombies count as dead). */
export async function isRunning(pid: number, platform = process.platform): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (platform !== 'linux') return true;
  try {
    const info = parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
    return info !== null && !info.zombie;
  } catch {
    return false;
  }
}

/** Whether any process (a zombie too) is still in process group `pgid`. */
function groupHasMembers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone, or never ours
  }
}

async function running(pids: Iterable<number>): Promise<number[]> {
  const list = [...new Set(pids)];
  const alive = await Promise.all(list.map((pid) => isRunning(pid)));
  return list.filter((_, i) => alive[i]);
}

function delay(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

/** Polls until none of `pids` runs or `deadline` passes; returns those still running. */
async function waitGone(clock: Clock, pids: number[], deadline: number): Promise<number[]> {
  let left = await running(pids);
  // No event exists for the death of a process that is not our child, so poll, briefly.
  for (let step = POLL_MS; left.length > 0 && clock.now() < deadline; step = Math.min(step * 2, POLL_MAX_MS)) {
    await delay(clock, Math.min(step, Math.max(1, deadline - clock.now())));
    left = await running(left);
  }
  return left;
}

export interface TerminateOptions {
  graceMs: number;
  clock: Clock;
  /** The root already exited and was reaped (only its group is left to look at). */
  rootReaped: boolean;
  platform?: NodeJS.Platform;
}

/** SIGTERM the tree, SIGKILL whatever outlives `graceMs`, then verify that nothing runs. */
export async function terminateTree(root: number, options: TerminateOptions): Promise<TerminateResult> {
  const platform = options.platform ?? process.platform;
  if (platform === 'win32') return terminateWindows(root, options);
  // After a normal exit the group is usually empty. With the root reaped, only its group
  // (and that group's descendants) can be members: a signal-0 probe of the group answers
  // that without reading the process table, which is then read only when someone is left.
  if (options.rootReaped && !groupHasMembers(root)) return { signaled: [], survivors: [], escalated: false };

  const first = treeMembers(await snapshotProcesses(platform), root, options.rootReaped);
  if (first.length === 0) return { signaled: [], survivors: [], escalated: false };
  signal(-root, 'SIGTERM');
  for (const pid of first) signal(pid, 'SIGTERM');

  const left = await waitGone(options.clock, first, options.clock.now() + options.graceMs);
  // Look again: a process may have been forked during the grace period.
  const late = treeMembers(await snapshotProcesses(platform), root, options.rootReaped || !left.includes(root));
  const toKill = await running([...left, ...late]);
  if (toKill.length === 0) return { signaled: first, survivors: [], escalated: false };
  signal(-root, 'SIGKILL');
  for (const pid of toKill) signal(pid, 'SIGKILL');
  const survivors = await waitGone(options.clock, toKill, options.clock.now() + VERIFY_MS);
  return { signaled: [...new Set([...first, ...toKill])], survivors, escalated: true };
}

async function terminateWindows(root: number, options: TerminateOptions): Promise<TerminateResult> {
  if (options.rootReaped || !(await isRunning(root, 'win32'))) return { signaled: [], survivors: [], escalated: false };
  // taskkill /T /F: Windows has no polite signal a console program reliably honours.
  await new Promise<void>((resolve) => treeKill(root, 'SIGKILL', () => resolve()));
  const survivors = await waitGone(options.clock, [root], options.clock.now() + options.graceMs);
  return { signaled: [root], survivors, escalated: true };
}
