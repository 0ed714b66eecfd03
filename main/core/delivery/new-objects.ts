import { lstat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ProcessResult } from './git-process';

const MIB = 1024 * 1024;

/**
 * How delivery runs git over what the turn wrote (status, add, commit, fsck): no system or
 * global config and a repository config of our own (task-git.ts), so no filter driver,
 * textconv, fsmonitor, hook or other configured program of the operator's runs, whatever
 * the turn's `.gitattributes` names. Only the push reads the operator's config (it needs
 * their remote and credential helpers), and it reads no file of the turn's.
 */
export const CONFINED_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_ATTR_NOSYSTEM: '1',
};

export const CONFINED_GIT_ARGS: readonly string[] = [
  '-c',
  `core.attributesFile=${os.devNull}`,
  '-c',
  'gc.auto=0',
  '-c',
  'maintenance.auto=false',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'commit.gpgSign=false',
];

/** The push: no `ext::` remote helper (it runs a command), whatever a config says. */
export const PUSH_ARGS: readonly string[] = ['-c', 'protocol.ext.allow=never'];

export type Check = { ok: true } | { ok: false; reason: string };

const mib = (bytes: number) => `${(bytes / MIB).toFixed(bytes < 10 * MIB ? 1 : 0)} MiB`;

/** Before `git add` (so a huge file is never hashed): the first file over the cap. */
export async function checkFileSizes(worktree: string, paths: readonly string[], maxMiB: number): Promise<Check> {
  for (const rel of paths) {
    const stat = await lstat(path.join(worktree, rel)).catch(() => null);
    if (stat?.isFile() && stat.size > maxMiB * MIB) return { ok: false, reason: `${rel} is ${mib(stat.size)}, over the ${maxMiB} MiB push limit` };
  }
  return { ok: true };
}

type Git = (args: readonly string[], input?: string) => Promise<ProcessResult>;

/**
 * The delivery commit's new objects, before any of them reaches the root or the remote:
 * every one well formed (`git fsck --strict` of the new object folder only: a `.gitmodules`
 * with an option for a URL, a `.git` entry in a tree), and no blob over the cap.
 */
export async function checkNewObjects(git: Git, ids: readonly string[], maxMiB: number): Promise<Check> {
  if (ids.length === 0) return { ok: true };
  const sizes = await git(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], `${ids.join('\n')}\n`);
  if (!sizes.ok) return { ok: false, reason: `the new objects cannot be read: ${sizes.stderr.trim()}` };
  for (const line of sizes.stdout.split('\n')) {
    const [id, type, size] = line.split(' ');
    if (!id || !type || !size) continue;
    if (type === 'missing' || size === 'missing') return { ok: false, reason: `new object ${id} is missing` };
    if (Number(size) > maxMiB * MIB)
      return { ok: false, reason: `a new ${type} (${id.slice(0, 12)}) is ${mib(Number(size))}, over the ${maxMiB} MiB push limit` };
  }
  const fsck = await git(['fsck', '--no-full', '--strict', '--no-dangling', '--no-reflogs', '--no-progress']);
  if (!fsck.ok) return { ok: false, reason: `git fsck refused the new objects: ${(fsck.stderr || fsck.stdout).trim().split('\n', 1)[0]}` };
  return { ok: true };
}
