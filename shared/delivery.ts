import { z } from 'zod';

const FullSha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);

/** A pull request's web address: http(s), no credentials in it (nothing before an `@` in the host part). */
export const PrUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  .regex(/^https?:\/\/[^/?#@\s]+([/?#]|$)/, 'a pull request address carries no credentials');

/**
 * What git delivery did with one task's changes, as a turn's record carries it and its
 * detail shows it. `note` is the text the completion ends with (`Delivery: <note>`).
 */
export const DeliveryRecordSchema = z.object({
  /** `task/<slug>` the work was committed to; null when nothing was committed (the branch is gone). */
  branch: z.string().nullable(),
  /** What the task's worktree started from: the root's HEAD commit then, and its branch (null when detached). */
  base: z.object({ commit: FullSha, ref: z.string().nullable() }),
  /** The delivery commit; null when nothing was committed. */
  commit: FullSha.nullable(),
  /** Whether `git push -u origin <branch>` succeeded. */
  pushed: z.boolean(),
  /** The pull request gh printed; links open through `app:open-external`. */
  prUrl: PrUrlSchema.nullable(),
  note: z.string(),
  /** The work was left uncommitted in this worktree for the operator (a failed commit). */
  keptWorktree: z.string().nullable(),
});
export type DeliveryRecord = z.infer<typeof DeliveryRecordSchema>;
