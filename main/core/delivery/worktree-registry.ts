import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';

export const TaskWorktreeSchema = z.object({
  /** Also the folder's name under the trees folder and git's name for the worktree. */
  id: z.string().regex(/^[a-z0-9-]{1,120}$/),
  taskId: z.string(),
  /** The operator's checkout (its top level, real path). */
  root: z.string().min(1),
  /** The root's .git common folder (objects, refs, config). */
  commonDir: z.string().min(1),
  /** The worktree's own git folder (`<commonDir>/worktrees/<name>`: HEAD, index). */
  gitDir: z.string().min(1),
  /** The task's checkout. */
  path: z.string().min(1),
  branch: z.string().min(1),
  /** The turn's private git folders (task-git.ts); null in notes from before they existed. */
  privateGit: z.string().min(1).nullable().default(null),
  base: z.object({ commit: z.string().regex(/^[0-9a-f]{40,64}$/), ref: z.string().nullable() }),
  createdAt: z.string(),
  /**
   * `active` from creation until removal; `kept` when its work is left for the operator;
   * `left` when a crash left its branch (the worktree is gone): the task's next run here
   * takes that branch again, so a task never has two.
   */
  state: z.enum(['active', 'kept', 'left']),
  /** The branch was a crashed run's, taken again: its push replaces what that run may have pushed. */
  reused: z.boolean().default(false),
  /** When the sweep found it left by a crash. */
  leftAt: z.string().nullable().default(null),
});
export type TaskWorktree = z.infer<typeof TaskWorktreeSchema>;

/**
 * The worktrees Runner Tray made, one note each in the data folder, written before the
 * worktree exists and removed after it is gone. A note left at start is a worktree a crash
 * left: only those are swept, never a worktree the operator made.
 */
export class WorktreeRegistry {
  constructor(private readonly dir: string) {}

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  async put(tree: TaskWorktree): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file(tree.id), JSON.stringify(tree), { mode: 0o600 });
  }

  async drop(id: string): Promise<void> {
    await rm(this.file(id), { force: true });
  }

  /** Every note on disk; unreadable ones are reported by name (their worktree cannot be told apart). */
  async all(): Promise<{ trees: TaskWorktree[]; unreadable: string[] }> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return { trees: [], unreadable: [] };
    }
    const trees: TaskWorktree[] = [];
    const unreadable: string[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      try {
        trees.push(TaskWorktreeSchema.parse(JSON.parse(await readFile(path.join(this.dir, name), 'utf8'))));
      } catch {
        unreadable.push(name);
      }
    }
    return { trees, unreadable };
  }
}
