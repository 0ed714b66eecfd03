import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { PrUrlSchema, type DeliveryRecord } from '../../../shared/delivery';
import { errorText } from '../../../shared/errors';
import { commitMessage, firstLine, notes, prBody, prTitle, type DeliveryTask } from './delivery-texts';
import type { ProcessPort, ProcessResult } from './git-process';
import type { TaskWorktree } from './worktree-registry';
import { NO_HOOKS } from './worktrees';

export interface DeliverRequest extends DeliveryTask {
  /** The profile wants a pull request (raised only when gh is installed and signed in). */
  raisePr: boolean;
}

const ShaSchema = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);
const ShortShaSchema = z.string().regex(/^[0-9a-f]{4,64}$/);

export interface PorcelainEntry {
  path: string;
  /** The work tree's side changed (or the path is untracked): it still has to be added. */
  unstaged: boolean;
}

/** `git status --porcelain=v1 -z` entries (a rename or copy once, by its new path); odd fields are skipped. */
export function porcelainEntries(stdout: string): PorcelainEntry[] {
  const fields = stdout.split('\0');
  const out: PorcelainEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    // "XY path": two status letters, a space, a path; a rename's source follows as its own field.
    if (field.length < 4 || field[2] !== ' ') continue;
    if (field[0] === 'R' || field[0] === 'C') i++;
    out.push({ path: field.slice(3), unstaged: field[1] !== ' ' });
  }
  return out;
}

/** Paths per `git add` call, well under any system's argument limit. */
const ADD_BATCH = 500;

/**
 * Delivers what the turn left in its worktree, after every verdict: one commit on the
 * task's branch with the seed's message and trailer, `git push -u origin <branch>`, and a
 * pull request through gh when wanted and possible. Every step's failure becomes the seed's
 * note; nothing here throws.
 *
 * git runs with GIT_DIR, GIT_COMMON_DIR and GIT_WORK_TREE set to what the manager recorded
 * before the turn, so a turn that rewrote the worktree's `.git` file or its `commondir`
 * cannot point delivery (which holds the credentials) at a repository of its own; hooks
 * and fsmonitor never run, nothing looks into a nested repository (whose config the turn
 * wrote: status ignores submodules, add names files only), and worktree-only config is
 * emptied first.
 *
 * Commits the turn made itself are folded into the one delivery commit (`reset --soft` to
 * the base first): the branch carries exactly one commit, with the seed's message.
 */
export async function deliverWorktree(port: ProcessPort, tree: TaskWorktree, request: DeliverRequest): Promise<DeliveryRecord> {
  const env = { GIT_DIR: tree.gitDir, GIT_COMMON_DIR: tree.commonDir, GIT_WORK_TREE: tree.path };
  const git = (args: readonly string[]) => port.run('git', [...NO_HOOKS, ...args], { cwd: tree.path, env });
  const record: DeliveryRecord = { branch: null, base: tree.base, commit: null, pushed: false, prUrl: null, note: '', keptWorktree: null };
  const kept = (note: string): DeliveryRecord => ({ ...record, note: `${note} (changes remain in ${tree.path})`, keptWorktree: tree.path });
  const failed = (reason: string) => kept(notes.failed(reason));
  const skipped = (stderr: string) => kept(notes.statusFailed(stderr));
  try {
    // Git writes this file only for `git config --worktree`; a turn's settings there never reach delivery.
    await writeFile(path.join(tree.gitDir, 'config.worktree'), '');
    const onBranch = await git(['symbolic-ref', 'HEAD', `refs/heads/${tree.branch}`]);
    if (!onBranch.ok) return skipped(onBranch.stderr);
    const reset = await git(['reset', '--quiet', '--soft', tree.base.commit]);
    if (!reset.ok) return skipped(reset.stderr);
    const status = await git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=all']);
    if (!status.ok) return skipped(status.stderr);
    // A folder entry is a nested repository: not the turn's files, and git would run its config's filters.
    const entries = porcelainEntries(status.stdout).filter((e) => !e.path.endsWith('/'));
    if (entries.length === 0) return { ...record, note: notes.nothing };

    // Everything in the worktree is the turn's (it started clean): no operator change to fence out.
    const toAdd = entries.filter((e) => e.unstaged).map((e) => e.path);
    for (let i = 0; i < toAdd.length; i += ADD_BATCH) {
      const added = await git(['add', '--all', '--', ...toAdd.slice(i, i + ADD_BATCH)]);
      if (!added.ok) return failed(`git add failed: ${added.stderr.trim()}`);
    }
    const committed = await git(['commit', '--quiet', '--no-verify', '-m', commitMessage(request)]);
    if (!committed.ok) return failed(`git commit failed: ${(committed.stderr || committed.stdout).trim()}`);
    const commit = ShaSchema.safeParse((await git(['rev-parse', '--verify', 'HEAD'])).stdout.trim());
    const short = ShortShaSchema.safeParse((await git(['rev-parse', '--short', 'HEAD'])).stdout.trim());
    if (!commit.success || !short.success) return failed('the delivery commit cannot be read back');
    const done: DeliveryRecord = { ...record, branch: tree.branch, commit: commit.data };

    const later: string[] = [];
    const pushed = await git(['push', '--quiet', '-u', 'origin', tree.branch]);
    if (!pushed.ok) later.push(notes.pushFailed(pushed.stderr));
    let prUrl: string | null = null;
    if (request.raisePr && pushed.ok) {
      const pr = await raisePr(port, tree, env, request, short.data);
      if ('url' in pr) prUrl = pr.url;
      else later.push(notes.prFailed(pr.reason, tree.branch));
    }
    const note = [notes.delivered(entries.length, tree.branch, short.data, prUrl), ...later].join('; ');
    return { ...done, pushed: pushed.ok, prUrl, note };
  } catch (error) {
    return failed(`unexpectedly: ${errorText(error)}`);
  }
}

async function raisePr(
  port: ProcessPort,
  tree: TaskWorktree,
  env: Record<string, string>,
  request: DeliverRequest,
  shortSha: string,
): Promise<{ url: string } | { reason: string }> {
  const gh = (args: readonly string[]): Promise<ProcessResult> => port.run('gh', args, { cwd: tree.path, env });
  const auth = await gh(['auth', 'status']);
  if (auth.missing) return { reason: 'gh is not installed' };
  if (!auth.ok) return { reason: 'gh is not signed in' };
  const pr = await gh(['pr', 'create', '--head', tree.branch, '--title', prTitle(request), '--body', prBody(request, shortSha)]);
  if (!pr.ok) return { reason: firstLine(pr.stderr) || `gh exited ${pr.code ?? 'on a signal'}` };
  const url = PrUrlSchema.safeParse(firstLine(pr.stdout));
  return url.success ? { url: url.data } : { reason: 'gh printed no pull request address' };
}
