import type { DeliveryRecord } from '../../../shared/delivery';
import { errorText } from '../../../shared/errors';
import type { Logger } from '../base/ports';
import { deliverWorktree, type DeliverRequest } from './deliver';
import { spawnProcessPort, type ProcessPort } from './git-process';
import type { TaskWorktree } from './worktree-registry';
import { WorktreeManager, type SweepReport } from './worktrees';

export interface GitDeliveryDeps {
  /** Runner Tray's folder for delivery, in the app's data folder (`<data>/delivery`). */
  stateDir: string;
  log: Logger;
  /** Default: git and gh from PATH, clean environment, no prompts. */
  git?: ProcessPort;
  now?: () => Date;
}

/**
 * Git delivery for a connector session (one per host; every profile's root can use it):
 *
 *   await delivery.sweep();                                  // once, at start
 *   const tree = await delivery.start(root, taskId);         // after the claim
 *   // the turn runs with cwd = tree.path; isolateTurn's `widen` adds
 *   //   (spec) => withGitWorktree(spec, gitWorktreeAccess(tree, { home, env }))
 *   const record = await delivery.finish(tree, request);     // after the turn, any verdict
 *   text += completionSuffix(record.note);
 *   // a turn abandoned (crashed, timed out without closeout): await delivery.discard(tree)
 */
export class GitDelivery {
  private readonly trees: WorktreeManager;
  private readonly git: ProcessPort;

  constructor(private readonly deps: GitDeliveryDeps) {
    this.git = deps.git ?? spawnProcessPort();
    this.trees = new WorktreeManager({ git: this.git, stateDir: deps.stateDir, log: deps.log, now: deps.now });
  }

  sweep(): Promise<SweepReport> {
    return this.trees.sweep();
  }

  /** Before a claim (the session's RootReadyPort): can a task start from this root? */
  async checkRoot(root: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    try {
      await this.trees.resolveRoot(root);
      return { ok: true };
    } catch (error) {
      return { ok: false, reason: errorText(error) };
    }
  }

  /** The task's worktree on its fresh branch. Throws WorktreeError (the task cannot run; leave its lease to expire). */
  start(root: string, taskId: string): Promise<TaskWorktree> {
    return this.trees.create(root, taskId);
  }

  /** Delivers, then removes the worktree (kept instead when its changes could not be committed). Never throws. */
  async finish(tree: TaskWorktree, request: DeliverRequest): Promise<DeliveryRecord> {
    const record = await deliverWorktree(this.git, tree, request);
    this.deps.log.info(`delivery: ${record.note}`);
    if (!record.keptWorktree) await this.trees.remove(tree);
    else
      await this.trees.keep(tree).catch((error: unknown) => this.deps.log.warn(`delivery: could not note the kept worktree ${tree.path}: ${errorText(error)}`));
    return record;
  }

  /** The worktree of a turn that is not delivered: removed with its branch, its changes dropped. */
  discard(tree: TaskWorktree): Promise<void> {
    return this.trees.remove(tree, 'always');
  }
}
