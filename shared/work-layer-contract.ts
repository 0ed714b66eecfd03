import type { z } from 'zod';
import { command, NoInput } from './command';
import { WorkActionOutcomeSchema, WorkBoardSchema, WorkBriefActionInputSchema, WorkReviseInputSchema } from './work-layer';

/**
 * The operator's Work view of a Sechroom Work Layer (issue 18): kept in its own file and
 * merged into `commands` in contract.ts, like the operator side.
 */
export const workLayerCommands = {
  /** Briefs with their work plans and tasks (status, lane, lease holder, verdicts, last completion). */
  'work:board': command(NoInput, WorkBoardSchema),
  /** pause / resume / cancel (with a reason code and text), park / unpark / supersede of one brief. */
  'work:brief-action': command(WorkBriefActionInputSchema, WorkActionOutcomeSchema),
  /** Return a work plan for revision with notes: a new Pending plan takes its unfinished tasks. */
  'work:return-for-revision': command(WorkReviseInputSchema, WorkActionOutcomeSchema),
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
