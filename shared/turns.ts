import { z } from 'zod';
import { DeliveryRecordSchema } from './delivery';
import { VERDICTS } from './protocol/sechroom';
import { RUNTIME_IDS } from './runtimes';

export const TurnPhaseSchema = z.enum(['starting', 'running', 'canceling', 'reporting', 'succeeded', 'failed', 'canceled']);
export type TurnPhase = z.infer<typeof TurnPhaseSchema>;

/**
 * Where a finished turn's result is: `sending` (queued, first try under way), `waiting`
 * (tries failed; retried with backoff), `delivered` (the control plane has it; `late`
 * says the control plane had already ended the unit, e.g. by lease expiry), or
 * `refused` (the control plane will never take it, with its reason).
 */
export const DeliverySchema = z.object({
  state: z.enum(['sending', 'waiting', 'delivered', 'refused']),
  attempts: z.number().int().min(0),
  /** When the result was queued (ISO): the age of a waiting result. */
  since: z.string(),
  /** Redacted: the last error (waiting), the refusal (refused) or why it was late (delivered). */
  reason: z.string().nullable(),
  late: z.boolean().optional(),
});
export type Delivery = z.infer<typeof DeliverySchema>;

/** One unit of work as the window shows it. Text from the control plane is display text only. */
export const TurnViewSchema = z.object({
  id: z.string(),
  /** The profile that ran it (absent from rows of single-runner builds: `default`). */
  profile: z.string().optional(),
  kind: z.enum(['turn_execution', 'work_order']),
  runtime: z.enum(RUNTIME_IDS).nullable(),
  seat: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
  buildRequestId: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  phase: TurnPhaseSchema,
  pid: z.number().int().nullable(),
  tokens: z.object({ input: z.number(), output: z.number() }).nullable(),
  costUsd: z.number().nullable(),
  /** Redacted. */
  outputTail: z.string(),
  /** Redacted; set when the turn ends. */
  summary: z.string().nullable(),
  /** What the control plane asked on the lease: pause at the next checkpoint, or cancel. */
  lease: z.enum(['active', 'pause_requested', 'cancel_requested']).nullable(),
  /** Why it failed or was canceled, in one line. */
  reason: z.string().nullable(),
  /** Finished turns: where the result is (absent in rows of older builds). */
  delivery: DeliverySchema.nullable().optional(),
  /** Which control plane the turn is for (absent: Rost). */
  plane: z.enum(['rost', 'sechroom']).optional(),
  /** Sechroom: the task's title (control-plane text, display only). */
  title: z.string().nullable().optional(),
  /** Sechroom: the completion's verdict once the closeout is mapped. */
  verdict: z.enum(VERDICTS).nullable().optional(),
  /** Sechroom: the last lifecycle signal (`phase:status`, e.g. `verify:started`), as progress. */
  lifecyclePhase: z.string().nullable().optional(),
  /** Sechroom: the lease as the executor holds it (heartbeating, cancel asked, ended, left to expire, completed). */
  leaseState: z.enum(['held', 'cancel_requested', 'ended', 'left_to_expire', 'completed']).nullable().optional(),
  /** Sechroom with git delivery: the task's branch, base, commit, push and PR (`delivery` is the result's outbox state). */
  git: DeliveryRecordSchema.nullable().optional(),
});
export type TurnView = z.infer<typeof TurnViewSchema>;

/** A batch of changes: upserts of active turns, ids that left, and newly finished turns. */
export const TurnsUpdateSchema = z.object({
  active: z.array(TurnViewSchema),
  removed: z.array(z.string()),
  finished: z.array(TurnViewSchema),
  /** Finished turns whose row changed in place (their result's delivery), in no particular order. */
  updated: z.array(TurnViewSchema).optional(),
});
export type TurnsUpdate = z.infer<typeof TurnsUpdateSchema>;

export const HISTORY_LIMIT = 10_000;

/** Rows a `turns:list` page holds by default, and at most. */
export const TURNS_PAGE_SIZE = 100;
export const TURNS_PAGE_MAX = 500;

/**
 * A finished turn as the history list shows it: no output tail and no summary (those
 * come with `turns:detail` when the row is chosen), only its first line as `headline`.
 */
export const TurnRowSchema = TurnViewSchema.omit({ outputTail: true, summary: true }).extend({
  /** The first line of the summary, else of the reason, cut to HEADLINE_CHARS; null when neither. */
  headline: z.string().nullable(),
});
export type TurnRow = z.infer<typeof TurnRowSchema>;

export const HEADLINE_CHARS = 160;

/** The running turns whole and every history row, for the core's own readers (request views). */
export const TurnsSnapshotSchema = z.object({
  active: z.array(TurnViewSchema),
  /** Newest first: list rows (their whole records stay on disk). */
  history: z.array(TurnRowSchema),
});
export type TurnsSnapshot = z.infer<typeof TurnsSnapshotSchema>;

export function toTurnRow(turn: TurnView): TurnRow {
  const { outputTail: _tail, summary, ...rest } = turn;
  const first = (summary ?? rest.reason ?? '').split('\n', 1)[0]!.trim();
  return { ...rest, headline: first ? first.slice(0, HEADLINE_CHARS) : null };
}

/** `turns:list` input: a window of the history, newest first, `offset` rows from the newest. */
export const TurnsPageInputSchema = z
  .object({
    offset: z.number().int().min(0).max(HISTORY_LIMIT).optional(),
    limit: z.number().int().min(1).max(TURNS_PAGE_MAX).optional(),
  })
  .strict()
  .optional();

/** The running turns and one window of the history, with the history's total row count. */
export const TurnsPageSchema = z.object({
  active: z.array(TurnViewSchema),
  /** Newest first, starting `offset` rows from the newest. */
  history: z.array(TurnRowSchema),
  offset: z.number().int().min(0),
  total: z.number().int().min(0),
});
export type TurnsPage = z.infer<typeof TurnsPageSchema>;
