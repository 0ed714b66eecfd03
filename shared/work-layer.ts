import { z } from 'zod';
import {
  BRIEF_STATUSES,
  BRIEF_VERB_FROM,
  DECOMPOSITION_STATUSES,
  TASK_STATUSES,
  VERDICTS,
  type BriefStatus,
  type DecompositionStatus,
} from './protocol/sechroom';
import { ProfileIdSchema } from './profiles';

/*
 * The operator's Work view of a Sechroom Work Layer: briefs, their work plans
 * (decompositions) and tasks, and the lifecycle verbs of seed B13. Everything the Work
 * Layer wrote (titles, reasons, notes) is display text only.
 */

export const WORK_BRIEF_ACTIONS = ['pause', 'resume', 'cancel', 'park', 'unpark', 'supersede'] as const;
export type WorkBriefAction = (typeof WORK_BRIEF_ACTIONS)[number];
/** Pause, resume and cancel carry a reason code (and optional text); park, unpark and supersede do not (seed B13). */
export const REASONED_ACTIONS: readonly WorkBriefAction[] = ['pause', 'resume', 'cancel'];
export const WORK_REASON_CODES = ['operator_request', 'scope_change', 'blocked', 'duplicate', 'priority'] as const;
export const WORK_REASON_MAX = 2000;
export const REVISION_NOTES_MAX = 10_000;

/** The verbs the Work Layer takes from a brief's state (docs/protocol.md §12.7). */
export function briefActions(status: BriefStatus): WorkBriefAction[] {
  return WORK_BRIEF_ACTIONS.filter((a) => (BRIEF_VERB_FROM[a] as readonly BriefStatus[]).includes(status));
}

export function canReturnForRevision(status: DecompositionStatus): boolean {
  return status === 'Pending' || status === 'Accepted' || status === 'Failed';
}

export const WorkTaskViewSchema = z.object({
  memoryId: z.string(),
  title: z.string(),
  status: z.enum(TASK_STATUSES),
  laneId: z.string().nullable(),
  verdict: z.enum(VERDICTS).nullable(),
  /** The executor instance holding the task's lease now (its key), or null. */
  leaseHolder: z.string().nullable(),
  leaseExpiresAt: z.string().nullable(),
  cancelRequested: z.boolean(),
  lastCompletion: z.object({ verdict: z.enum(VERDICTS), title: z.string(), source: z.string(), receivedAt: z.string() }).nullable(),
});
export type WorkTaskView = z.infer<typeof WorkTaskViewSchema>;

export const WorkPlanViewSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(DECOMPOSITION_STATUSES),
  taskCount: z.number().int(),
  revisionOf: z.string().nullable(),
  revisionNotes: z.string().nullable(),
  updatedAt: z.string(),
  tasks: z.array(WorkTaskViewSchema),
});
export type WorkPlanView = z.infer<typeof WorkPlanViewSchema>;

export const WorkBriefViewSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(BRIEF_STATUSES),
  reasonCode: z.string().nullable(),
  reason: z.string().nullable(),
  source: z.string().nullable(),
  updatedAt: z.string(),
  plans: z.array(WorkPlanViewSchema),
});
export type WorkBriefView = z.infer<typeof WorkBriefViewSchema>;

export const WorkBoardSchema = z.discriminatedUnion('state', [
  /** No Work Layer to show: why, and what to set. */
  z.object({ state: z.literal('not_configured'), message: z.string() }),
  z.object({
    state: z.literal('ready'),
    baseUrl: z.string(),
    briefs: z.array(WorkBriefViewSchema),
    /** Briefs, plans and tasks the Work Layer has beyond those listed (newest first). */
    more: z.object({ briefs: z.number().int(), plans: z.number().int(), tasks: z.number().int() }),
  }),
]);
export type WorkBoard = z.infer<typeof WorkBoardSchema>;

const Id = z.string().min(1).max(200);

export const WorkBriefActionInputSchema = z
  .object({
    /** The profile shown: its Work Layer (absent: the host's first Sechroom profile, or the environment's). */
    profile: ProfileIdSchema.optional(),
    briefId: Id,
    action: z.enum(WORK_BRIEF_ACTIONS),
    reasonCode: z.string().trim().min(1).max(100).optional(),
    reason: z.string().trim().max(WORK_REASON_MAX, `at most ${WORK_REASON_MAX} characters`).optional(),
  })
  .strict()
  .refine((input) => !REASONED_ACTIONS.includes(input.action) || input.reasonCode !== undefined, {
    message: 'a reason code is required',
    path: ['reasonCode'],
  });

export const WorkReviseInputSchema = z
  .object({
    profile: ProfileIdSchema.optional(),
    decompositionId: Id,
    notes: z.string().trim().min(1, 'say what to revise').max(REVISION_NOTES_MAX, `at most ${REVISION_NOTES_MAX} characters`),
  })
  .strict();

export const WorkActionOutcomeSchema = z.object({ message: z.string(), changed: z.boolean() });
export type WorkActionOutcome = z.infer<typeof WorkActionOutcomeSchema>;
