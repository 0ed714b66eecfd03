import { z } from 'zod';
import { command } from './command';
import { ProfileIdSchema } from './profiles';
import { WorkActionOutcomeSchema, WorkBoardSchema, WorkBriefActionInputSchema, WorkReviseInputSchema } from './work-layer';

/** The profile shown, whose Work Layer is read; absent (older callers): the host's first Sechroom profile, or the environment's. */
const WorkBoardInputSchema = z
  .union([z.undefined(), z.null(), z.object({ profile: ProfileIdSchema.optional() }).strict()])
  .transform((input) => input?.profile ?? null);

/**
 * The operator's Work view of a Sechroom Work Layer: kept in its own file and
 * merged into `commands` in contract.ts, like the operator side. Each command acts on the
 * Work Layer of the profile shown.
 */
export const workLayerCommands = {
  /** Briefs with their work plans and tasks (status, lane, lease holder, verdicts, last completion). */
  'work:board': command(WorkBoardInputSchema, WorkBoardSchema),
  /** pause / resume / cancel (with a reason code and text), park / unpark / supersede of one brief. */
  'work:brief-action': command(WorkBriefActionInputSchema, WorkActionOutcomeSchema),
  /** Return a work plan for revision with notes: a new Pending plan takes its unfinished tasks. */
  'work:return-for-revision': command(WorkReviseInputSchema, WorkActionOutcomeSchema),
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
