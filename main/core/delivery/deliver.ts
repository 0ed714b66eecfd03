import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { PrUrlSchema, type DeliveryRecord } from '../../../shared/delivery';
import { errorText } from '../../../shared/errors';
import { commitMessage, firstLine, notes, prBody, prTitle, type DeliveryTask } from './delivery-texts';
import type { ProcessPort, ProcessResult } from './git-process';
import { CONFINED_GIT_ARGS, CONFINED_GIT_ENV, PUSH_ARGS, checkFileSizes, checkNewObjects } from './new-objects';
import { copyObjects, looseObjects, prepareHostGit, restoreCheckout } from '../exec/isolation/task-git';
import type { TaskWorktree } from './worktree-registry';
import { NO_HOOKS } from './worktrees';

export interface DeliverRequest extends DeliveryTask {
  /** The profile wants a pull request (raised only when gh is installed and signed in). */
  raisePr: boolean;
  /** No file over this many MiB is pushed (the delivery fails instead, its changes kept). */
  maxPushMiB: number;
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
 * Nothing the turn's git wrote is trusted (task-git.ts): its objects, index and branch stay
 * in its private repository, and the checkout's `.git` is pointed back at the root's
 * folder for it. The commit is made from the turn's files in a fresh common folder of
 * delivery's own whose config names no program (new-objects.ts: no operator filter, hook or
 * fsmonitor runs, whatever the turn's `.gitattributes` says), from a copy of the root's
 * own index for the worktree, which the turn never saw. Its new objects are checked (no
 * file over the push limit, `git fsck --strict`) before they are copied into the root's
 * objects and the branch moves; only then does the push run, with the operator's config
 * (their remote and credentials) and no hooks.
 *
 * Commits the turn made itself are never seen: the branch carries exactly one commit, with
 * the seed's message (its trailer the runner's alone).
 */
export async function deliverWorktree(port: ProcessPort, tree: TaskWorktree, request: DeliverRequest): Promise<DeliveryRecord> {
  const rootEnv = { GIT_DIR: tree.gitDir, GIT_COMMON_DIR: tree.commonDir, GIT_WORK_TREE: tree.path };
  const rootGit = (args: readonly string[]) => port.run('git', [...NO_HOOKS, ...args], { cwd: tree.path, env: rootEnv });
  const record: DeliveryRecord = { branch: null, base: tree.base, commit: null, pushed: false, prUrl: null, note: '', keptWorktree: null };
  const kept = (note: string): DeliveryRecord => ({ ...record, note: `${note} (changes remain in ${tree.path})`, keptWorktree: tree.path });
  const failed = (reason: string) => kept(notes.failed(reason));
  try {
    const made = await commitTurnFiles(port, tree, request, rootGit);
    if ('nothing' in made) return { ...record, note: notes.nothing };
    if ('skipped' in made) return kept(notes.statusFailed(made.skipped));
    if ('failed' in made) return failed(made.failed);
    const done: DeliveryRecord = { ...record, branch: tree.branch, commit: made.commit };

    const later: string[] = [];
    // A crashed run's branch taken again replaces what that run may have pushed (one branch per task in origin).
    const pushed = await rootGit([...PUSH_ARGS, 'push', '--quiet', '-u', 'origin', tree.reused ? `+${tree.branch}` : tree.branch]);
    if (!pushed.ok) later.push(notes.pushFailed(pushed.stderr));
    let prUrl: string | null = null;
    if (request.raisePr && pushed.ok) {
      const pr = await raisePr(port, tree, rootEnv, request, made.short);
      if ('url' in pr) prUrl = pr.url;
      else later.push(notes.prFailed(pr.reason, tree.branch));
    }
    const note = [notes.delivered(made.paths, tree.branch, made.short, prUrl), ...later].join('; ');
    return { ...done, pushed: pushed.ok, prUrl, note };
  } catch (error) {
    return failed(`unexpectedly: ${errorText(error)}`);
  }
}

type Made = { nothing: true } | { skipped: string } | { failed: string } | { commit: string; short: string; paths: number };
type Git = (args: readonly string[], input?: string) => Promise<ProcessResult>;

/** The operator's name and address for the delivery commit (their config; the confined git reads none). */
async function operatorIdentity(rootGit: Git): Promise<Record<string, string>> {
  const name = (await rootGit(['config', '--get', 'user.name'])).stdout.trim() || 'Runner Tray';
  const email = (await rootGit(['config', '--get', 'user.email'])).stdout.trim() || 'runner-tray@localhost';
  return { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: name, GIT_COMMITTER_EMAIL: email };
}

/** The one delivery commit, checked, its objects in the root and the branch on it. */
async function commitTurnFiles(port: ProcessPort, tree: TaskWorktree, request: DeliverRequest, rootGit: Git): Promise<Made> {
  if (!tree.privateGit) return { failed: 'the worktree has no private git folder (made by an older version)' };
  await restoreCheckout(tree);
  // Git writes this file only for `git config --worktree`; nothing in it reaches delivery.
  await writeFile(path.join(tree.gitDir, 'config.worktree'), '');
  const input = {
    privateDir: tree.privateGit,
    commonDir: tree.commonDir,
    gitDir: tree.gitDir,
    path: tree.path,
    branch: tree.branch,
    baseCommit: tree.base.commit,
  };
  const format = (await rootGit(['rev-parse', '--show-object-format'])).stdout.trim() || 'sha1';
  const { hostCommon, hostGitDir } = await prepareHostGit({ ...input, objectFormat: format });
  const env = { ...CONFINED_GIT_ENV, ...(await operatorIdentity(rootGit)), GIT_DIR: hostGitDir, GIT_COMMON_DIR: hostCommon, GIT_WORK_TREE: tree.path };
  const git: Git = (args, stdin) =>
    port.run('git', [...NO_HOOKS, ...CONFINED_GIT_ARGS, ...args], { cwd: tree.path, env, ...(stdin === undefined ? {} : { input: stdin }) });

  const onBranch = await git(['symbolic-ref', 'HEAD', `refs/heads/${tree.branch}`]);
  if (!onBranch.ok) return { skipped: onBranch.stderr };
  const reset = await git(['reset', '--quiet', '--soft', tree.base.commit]);
  if (!reset.ok) return { skipped: reset.stderr };
  const status = await git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=all']);
  if (!status.ok) return { skipped: status.stderr };
  // A folder entry is a nested repository: not the turn's files, and git would run its config's filters.
  const entries = porcelainEntries(status.stdout).filter((e) => !e.path.endsWith('/'));
  if (entries.length === 0) return { nothing: true };

  // Everything in the worktree is the turn's (it started clean): no operator change to fence out.
  const toAdd = entries.filter((e) => e.unstaged).map((e) => e.path);
  const sizes = await checkFileSizes(tree.path, toAdd, request.maxPushMiB);
  if (!sizes.ok) return { failed: sizes.reason };
  for (let i = 0; i < toAdd.length; i += ADD_BATCH) {
    const added = await git(['add', '--all', '--', ...toAdd.slice(i, i + ADD_BATCH)]);
    if (!added.ok) return { failed: `git add failed: ${added.stderr.trim()}` };
  }
  const committed = await git(['commit', '--quiet', '--no-verify', '--cleanup=verbatim', '-m', commitMessage(request)]);
  if (!committed.ok) return { failed: `git commit failed: ${(committed.stderr || committed.stdout).trim()}` };
  const commit = ShaSchema.safeParse((await git(['rev-parse', '--verify', 'HEAD'])).stdout.trim());
  const short = ShortShaSchema.safeParse((await git(['rev-parse', '--short', 'HEAD'])).stdout.trim());
  if (!commit.success || !short.success) return { failed: 'the delivery commit cannot be read back' };

  const objects = path.join(hostCommon, 'objects');
  const ids = await looseObjects(objects);
  const checked = await checkNewObjects(git, ids, request.maxPushMiB);
  if (!checked.ok) return { failed: checked.reason };
  await copyObjects(objects, path.join(tree.commonDir, 'objects'), ids);
  const moved = await rootGit(['update-ref', `refs/heads/${tree.branch}`, commit.data]);
  if (!moved.ok) return { failed: `the branch could not be moved: ${moved.stderr.trim()}` };
  return { commit: commit.data, short: short.data, paths: entries.length };
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
