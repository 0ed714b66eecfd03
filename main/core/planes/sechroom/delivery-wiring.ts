import { errorText } from '../../../../shared/errors';
import type { DeliveryRecord } from '../../../../shared/delivery';
import type { GitDelivery } from '../../delivery/git-delivery';
import type { TaskWorktree } from '../../delivery/worktree-registry';
import { AppServerPool } from '../../exec/codex-app-server/server-pool';
import type { AppServerSpawnSpec } from '../../exec/codex-app-server/spawn';
import { gitWorktreeAccess, withGitWorktree } from '../../exec/isolation/git-worktree-access';
import type { IsolationSpec } from '../../exec/isolation/spec';
import type { Clock, Logger } from '../../base/ports';
import { AppServerTurns, type AppServerTurnsDeps } from './app-server-turns';
import { laneOf, type InstanceSettings } from '../../../../shared/sechroom-instance-settings';
import type { TaskWorkspace, TaskWorkspacePort } from './task-workspace';
import type { SechroomTurnRunner, TurnOutcome, TurnRequest } from './turn-runner';
import type { SechroomUsage } from './usage-account';

/*
 * Git delivery wired into a Sechroom profile: each claimed task gets a
 * worktree of the instance root on `task/<slug>`; its turn runs there on a codex
 * app-server of its own whose sandbox gets the worktree and what git needs in it (never
 * the operator's credentials); after the turn the work is delivered for every verdict,
 * or discarded when the turn is not completed.
 */

export interface GitWorkspacesDeps {
  delivery: Pick<GitDelivery, 'start' | 'finish' | 'discard'>;
  settings: InstanceSettings;
  raisePr: boolean;
  maxPushMiB: number;
  log: Logger;
}

/** The task worktrees of one profile, and which one a turn's working folder is. */
export class GitWorkspaces implements TaskWorkspacePort {
  private readonly trees = new Map<string, TaskWorktree>();

  constructor(private readonly deps: GitWorkspacesDeps) {}

  /** The worktree a turn runs in, by its path (null: the root, no delivery). */
  treeAt(cwd: string): TaskWorktree | null {
    return this.trees.get(cwd) ?? null;
  }

  async open(claim: { memoryId: string }): Promise<TaskWorkspace> {
    const { delivery, settings, raisePr, maxPushMiB, log } = this.deps;
    const tree = await delivery.start(settings.root, claim.memoryId);
    log.info(`task ${claim.memoryId} runs in ${tree.path} on ${tree.branch} (base ${tree.base.ref ?? 'detached HEAD'} @ ${tree.base.commit.slice(0, 12)})`);
    this.trees.set(tree.path, tree);
    const forget = () => this.trees.delete(tree.path);
    return {
      cwd: tree.path,
      deliver: async ({ verdict, title }): Promise<DeliveryRecord> => {
        forget();
        return delivery.finish(tree, { taskId: claim.memoryId, title, verdict, deliveredBy: laneOf(settings), raisePr, maxPushMiB });
      },
      discard: async () => {
        forget();
        await delivery.discard(tree).catch((error: unknown) => log.warn(`could not remove the worktree ${tree.path}: ${errorText(error)}`));
      },
    };
  }
}

export interface CodexTurnsDeps {
  /** The isolated `codex app-server` launch for a working folder (LocalRuntimeExecutor.codexAppServerLaunch). */
  launch(options: { cwd: string; widen?: (spec: IsolationSpec) => IsolationSpec }): Promise<AppServerSpawnSpec>;
  workspaces: Pick<GitWorkspaces, 'treeAt'> | null;
  /** The operator's home and environment (what the sandbox keeps out of a worktree turn). */
  operator: { home: string; env: Readonly<Record<string, string | undefined>> };
  usage?: Pick<SechroomUsage, 'onRateLimits' | 'onTurnEnded'>;
  /** The turns' live transcripts (see AppServerTurnsDeps). */
  transcript?: Pick<AppServerTurnsDeps, 'onTranscript' | 'knownSecrets'>;
  clientVersion: string;
  clock: Clock;
  log: Logger;
}

/**
 * A Sechroom profile's turns on the codex app-server: in the root, one long-lived server;
 * in a task's worktree, a server of its own (the pool is keyed by working folder), with the
 * sandbox widened for git, stopped once the turn is over.
 */
export class SechroomCodexTurns implements SechroomTurnRunner {
  private readonly shared: AppServerPool;

  constructor(private readonly deps: CodexTurnsDeps) {
    this.shared = this.pool();
  }

  async run(request: TurnRequest): Promise<TurnOutcome> {
    const { deps } = this;
    const tree = deps.workspaces?.treeAt(request.cwd) ?? null;
    const widen = tree ? (spec: IsolationSpec) => withGitWorktree(spec, gitWorktreeAccess(tree, deps.operator)) : undefined;
    const pool = tree ? this.pool() : this.shared;
    const turns = new AppServerTurns({
      pool,
      server: () => deps.launch({ cwd: request.cwd, ...(widen ? { widen } : {}) }),
      clock: deps.clock,
      log: deps.log,
      ...(deps.usage ? { onRateLimits: deps.usage.onRateLimits, onTurnEnded: deps.usage.onTurnEnded } : {}),
      ...deps.transcript,
    });
    try {
      return await turns.run(request);
    } finally {
      if (tree) await pool.stopAll();
    }
  }

  stop(): Promise<void> {
    return this.shared.stopAll();
  }

  private pool(): AppServerPool {
    return new AppServerPool({ log: this.deps.log, clock: this.deps.clock, clientVersion: this.deps.clientVersion });
  }
}
