import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from '../../../shared/errors';
import type { Logger } from '../base/ports';
import { firstFreeBranch, firstLine, slug } from './delivery-texts';
import type { ProcessPort, ProcessResult } from './git-process';
import { prepareTurnGit, restoreCheckout } from '../exec/isolation/task-git';
import { WorktreeRegistry, type TaskWorktree } from './worktree-registry';

/** Git never runs a hook for Runner Tray: a hook path may lie inside a turn-written tree (husky's `.husky`). */
export const NO_HOOKS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'submodule.recurse=false'] as const;

export class WorktreeError extends Error {
  override name = 'WorktreeError';
}

export interface SweepReport {
  /** Worktrees a crash left, now removed (their branch too when it holds no commit of its own). */
  removed: TaskWorktree[];
  /** Worktrees kept for the operator (a failed commit), still there; a kept one the operator removed is forgotten. */
  kept: TaskWorktree[];
  /** Notes that could not be read, left alone (their worktree cannot be told from the operator's). */
  unreadable: string[];
}

export interface WorktreeManagerDeps {
  git: ProcessPort;
  /** Runner Tray's folder for delivery (e.g. `<data>/delivery`): the task checkouts and the notes. */
  stateDir: string;
  log: Logger;
  now?: (() => Date) | undefined;
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** How long a crashed run's branch waits for its task to come back here before the task counts as finished elsewhere. */
export const LEFT_BRANCH_MS = 7 * 24 * 3600_000;

/**
 * One `git worktree` of the profile's root per task, on a fresh `task/<slug>` branch from
 * the root's HEAD commit, so tasks run side by side and the operator's checkout (its
 * branch, index, uncommitted changes) is never touched. Git writes its own bookkeeping in
 * the root's .git (the worktree's folder, the branch); nothing else outside the task's
 * checkout is written.
 */
export class WorktreeManager {
  private readonly registry: WorktreeRegistry;
  /** Creations one at a time, so two tasks never pick the same free branch name. */
  private creating: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: WorktreeManagerDeps) {
    this.registry = new WorktreeRegistry(path.join(deps.stateDir, 'registry'));
  }

  private get treesDir(): string {
    return path.join(this.deps.stateDir, 'trees');
  }

  /** Each task's private git folders (task-git.ts), by worktree id. */
  private get privateGitDir(): string {
    return path.join(this.deps.stateDir, 'git');
  }

  /** git in the root (never its index or working files: only rev-parse, worktree, branch). */
  rootGit(root: string, args: readonly string[]): Promise<ProcessResult> {
    return this.deps.git.run('git', ['-C', root, ...NO_HOOKS, ...args], { cwd: root });
  }

  /** A fresh worktree for `taskId`. Throws WorktreeError saying why (not a repository, no commit yet, git failed). */
  create(root: string, taskId: string): Promise<TaskWorktree> {
    const next = this.creating.then(() => this.createNow(root, taskId));
    this.creating = next.catch(() => undefined);
    return next;
  }

  /** The root's top level, .git common folder and HEAD commit (and branch). Throws WorktreeError. */
  async resolveRoot(rootDir: string): Promise<{ root: string; commonDir: string; base: TaskWorktree['base'] }> {
    const top = await this.rootGit(rootDir, ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir']);
    const [toplevel, common] = top.stdout.split('\n').map((l) => l.trim());
    if (!top.ok || !toplevel || !common) throw new WorktreeError(`${rootDir} is not a git checkout: ${firstLine(top.stderr) || 'no top level'}`);
    const root = await realpath(toplevel);
    const head = await this.rootGit(root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    const commit = head.stdout.trim();
    if (!head.ok || !SHA.test(commit)) throw new WorktreeError(`${root} has no commit to start a task from`);
    const symbolic = await this.rootGit(root, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    const ref = symbolic.ok && symbolic.stdout.trim() ? symbolic.stdout.trim() : null;
    return { root, commonDir: await realpath(common), base: { commit, ref } };
  }

  private async createNow(rootDir: string, taskId: string): Promise<TaskWorktree> {
    const { root, commonDir, base } = await this.resolveRoot(rootDir);
    const taken = async (candidate: string) => (await this.rootGit(root, ['rev-parse', '--verify', '--quiet', `refs/heads/${candidate}`])).ok;
    await mkdir(this.treesDir, { recursive: true, mode: 0o700 });
    const treesDir = await realpath(this.treesDir);
    // A crashed run of this task left its branch: the task takes it again (one branch per task, here and in origin).
    let left = await this.leftBranch(root, taskId, taken);
    // Another process may take the free name between the look and `worktree add`: then the next one.
    for (let attempt = 1; ; attempt++) {
      const branch = left?.branch ?? (await firstFreeBranch(taskId, taken));
      const id = `${slug(taskId).slice(0, 100)}-${randomBytes(4).toString('hex')}`;
      const tree: TaskWorktree = {
        id,
        taskId,
        root,
        commonDir,
        gitDir: path.join(commonDir, 'worktrees', id),
        path: path.join(treesDir, id),
        branch,
        privateGit: path.join(this.privateGitDir, id),
        base,
        createdAt: (this.deps.now?.() ?? new Date()).toISOString(),
        state: 'active',
        reused: left !== null,
        leftAt: null,
      };
      // The note first: a crash from here on leaves something the next start can sweep.
      await this.registry.put(tree);
      // `-B` starts the crashed run's branch again from the base: its commit is not the task's.
      const added = await this.rootGit(root, ['worktree', 'add', '--quiet', left ? '-B' : '-b', branch, tree.path, base.commit]);
      if (added.ok) {
        if (left) await this.registry.drop(left.id);
        return this.created(tree);
      }
      // The branch may be another's: it stays.
      await this.remove(tree, 'keep');
      if (left) {
        // The left branch is checked out somewhere (the operator took it): a fresh name instead.
        left = null;
        continue;
      }
      if (attempt >= 3 || !(await taken(branch))) throw new WorktreeError(`could not create branch ${branch}: ${firstLine(added.stderr)}`);
    }
  }

  /** The note of a branch a crashed run of `taskId` left in `root`, if the branch is still there. */
  private async leftBranch(root: string, taskId: string, taken: (branch: string) => Promise<boolean>): Promise<TaskWorktree | null> {
    const { trees } = await this.registry.all();
    for (const tree of trees) {
      if (tree.state !== 'left' || tree.taskId !== taskId || tree.root !== root) continue;
      if (await taken(tree.branch)) return tree;
      await this.registry.drop(tree.id);
    }
    return null;
  }

  private async created(tree: TaskWorktree): Promise<TaskWorktree> {
    const gitDir = await this.deps.git.run('git', ['rev-parse', '--path-format=absolute', '--absolute-git-dir'], { cwd: tree.path });
    const created: TaskWorktree = { ...tree, gitDir: gitDir.ok && gitDir.stdout.trim() ? gitDir.stdout.trim() : tree.gitDir };
    try {
      created.gitDir = await realpath(created.gitDir);
      // Present from the start, so the sandbox can bind it read-only (git reads it when worktree config is on).
      await writeFile(path.join(created.gitDir, 'config.worktree'), '', { flag: 'a' });
      await this.registry.put(created);
      const format = await this.rootGit(tree.root, ['rev-parse', '--show-object-format']);
      await prepareTurnGit({
        privateDir: created.privateGit!,
        commonDir: created.commonDir,
        gitDir: created.gitDir,
        path: created.path,
        branch: created.branch,
        baseCommit: created.base.commit,
        objectFormat: format.ok && format.stdout.trim() ? format.stdout.trim() : 'sha1',
      });
    } catch (error) {
      await this.remove(tree);
      throw new WorktreeError(`could not set up the worktree for ${tree.branch}: ${errorText(error)}`);
    }
    this.deps.log.info(
      `task ${tree.taskId}: worktree ${created.path} on ${tree.branch} from ${tree.base.ref ?? 'detached HEAD'} @ ${tree.base.commit.slice(0, 12)}`,
    );
    return created;
  }

  /** The worktree's work is left for the operator: it stays, and the start-up sweep leaves it alone. */
  async keep(tree: TaskWorktree): Promise<TaskWorktree> {
    await restoreCheckout(tree);
    await this.dropPrivateGit(tree);
    const kept: TaskWorktree = { ...tree, state: 'kept', privateGit: null };
    await this.registry.put(kept);
    return kept;
  }

  private async dropPrivateGit(tree: TaskWorktree): Promise<void> {
    if (tree.privateGit && path.dirname(tree.privateGit) === this.privateGitDir) await rm(tree.privateGit, { recursive: true, force: true });
  }

  /**
   * Removes the worktree and its note. Its branch goes too when it holds nothing beyond the
   * base (`if-empty`: nothing delivered), `always` (a discarded task) or never (`keep`).
   * Never throws; what failed is logged.
   */
  async remove(tree: TaskWorktree, branch: 'if-empty' | 'always' | 'keep' = 'if-empty'): Promise<void> {
    try {
      // git removes only a checkout whose `.git` names the root's folder for it.
      if (tree.privateGit && existsSync(tree.path)) await restoreCheckout(tree);
      const removed = await this.rootGit(tree.root, ['worktree', 'remove', '--force', '--force', tree.path]);
      if (!removed.ok) {
        // The root is gone, or git no longer knows the worktree: remove our folder, let git forget it.
        if (await this.owns(tree)) await rm(tree.path, { recursive: true, force: true });
        await this.rootGit(tree.root, ['worktree', 'prune']);
      }
      if (branch !== 'keep') {
        const tip = await this.rootGit(tree.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${tree.branch}`]);
        if (tip.ok && (branch === 'always' || tip.stdout.trim() === tree.base.commit)) await this.rootGit(tree.root, ['branch', '-D', tree.branch]);
      }
      await this.dropPrivateGit(tree);
      await this.registry.drop(tree.id);
    } catch (error) {
      this.deps.log.warn(`task ${tree.taskId}: could not remove worktree ${tree.path}: ${errorText(error)}`);
    }
  }

  /** At start: removes the worktrees a crash left (only those this manager's notes name). */
  async sweep(): Promise<SweepReport> {
    const { trees, unreadable } = await this.registry.all();
    const report: SweepReport = { removed: [], kept: [], unreadable };
    for (const name of unreadable) this.deps.log.warn(`delivery: unreadable worktree note ${name} left alone`);
    for (const tree of trees) {
      if (tree.state === 'left') {
        await this.ageLeft(tree);
        continue;
      }
      if (tree.state === 'kept') {
        // Kept for the operator until they remove it; then git forgets it and so does the note.
        if (existsSync(tree.path)) report.kept.push(tree);
        else await this.remove(tree);
        continue;
      }
      if (!(await this.owns(tree))) {
        this.deps.log.warn(`delivery: note ${tree.id} names ${tree.path}, outside ${this.treesDir}: left alone`);
        continue;
      }
      this.deps.log.warn(`task ${tree.taskId}: worktree ${tree.path} (${tree.branch}) left by a crash: removed`);
      await this.remove(tree);
      await this.noteLeft(tree);
      report.removed.push(tree);
    }
    return report;
  }

  /** A crashed worktree's branch that holds a commit stays (nothing is lost), noted for the task's next run. */
  private async noteLeft(tree: TaskWorktree): Promise<void> {
    const tip = await this.rootGit(tree.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${tree.branch}`]);
    if (!tip.ok) return;
    const leftAt = (this.deps.now?.() ?? new Date()).toISOString();
    await this.registry.put({ ...tree, state: 'left', privateGit: null, leftAt });
  }

  /**
   * A left branch the task has not taken again within LEFT_BRANCH_MS: its task was re-offered
   * when the lease expired and has finished elsewhere. Its note goes, and the branch too
   * when it is local-only (origin never got it); a pushed one stays beside its origin copy.
   */
  private async ageLeft(tree: TaskWorktree): Promise<void> {
    const now = (this.deps.now?.() ?? new Date()).getTime();
    const tip = await this.rootGit(tree.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${tree.branch}`]);
    if (tip.ok && now - Date.parse(tree.leftAt ?? tree.createdAt) < LEFT_BRANCH_MS) return;
    if (tip.ok) {
      const upstream = await this.rootGit(tree.root, ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${tree.branch}`]);
      if (!upstream.ok) {
        await this.rootGit(tree.root, ['branch', '-D', tree.branch]);
        this.deps.log.info(`task ${tree.taskId}: local-only branch ${tree.branch} a crash left, its task finished since: removed`);
      }
    }
    await this.registry.drop(tree.id);
  }

  /** Whether the note's checkout is one of this manager's (its id, directly in the trees folder). */
  private async owns(tree: TaskWorktree): Promise<boolean> {
    const parent = path.dirname(tree.path);
    if (path.basename(tree.path) !== tree.id) return false;
    if (parent === this.treesDir) return true;
    return parent === (await realpath(this.treesDir).catch(() => null));
  }
}
