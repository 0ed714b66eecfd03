import { z } from 'zod';
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
});
export type TurnView = z.infer<typeof TurnViewSchema>;

export const TurnsSnapshotSchema = z.object({
  active: z.array(TurnViewSchema),
  /** Newest first. */
  history: z.array(TurnViewSchema),
});
export type TurnsSnapshot = z.infer<typeof TurnsSnapshotSchema>;

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
