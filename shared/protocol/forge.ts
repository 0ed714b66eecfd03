import { z } from 'zod';
import { IsoTimeSchema, UuidSchema } from './common';
import {
  WireAutomationModeSchema,
  ChangesetStatusSchema,
  GateStatusSchema,
  PhaseRunStatusSchema,
  WirePhaseSchema,
  PlanVersionStatusSchema,
  RequestStatusSchema,
  RiskLevelSchema,
  SourceChannelSchema,
  TaskStatusSchema,
} from './forge-enums';

/** A non-negative decimal amount as a string, e.g. "25.00". [seed: cost_budget_usd is a string] */
export const DecimalStringSchema = z.string().regex(/^\d{1,9}(\.\d{1,6})?$/, 'must be a decimal string like "25.00"');

/** Board row. The ceiling fields are [seed]; the fields before current_phase are [v1]. Titles are untrusted display text. */
export const BuildRequestSummarySchema = z.object({
  id: UuidSchema,
  software_project_id: UuidSchema,
  title: z.string(),
  status: RequestStatusSchema,
  source_channel: SourceChannelSchema,
  current_phase: WirePhaseSchema,
  inferred_risk: RiskLevelSchema,
  automation_mode: WireAutomationModeSchema,
  max_iterations: z.number().int().nullable(),
  max_wall_clock_seconds: z.number().int().nullable(),
  cost_budget_usd: z.string().nullable(),
  iterations_used: z.number().int(),
  created_at: IsoTimeSchema,
  /** [v1] Why the request is in its status (the reason given with a pause, resume or cancel); absent from the seed. */
  status_reason: z.string().max(20_000).nullable().optional(),
});
export type BuildRequestSummary = z.infer<typeof BuildRequestSummarySchema>;

/** [v1] */
export const PhaseRunSummarySchema = z.object({
  id: UuidSchema,
  build_request_id: UuidSchema,
  phase: WirePhaseSchema,
  status: PhaseRunStatusSchema,
  attempt: z.number().int().positive(),
  started_at: IsoTimeSchema.nullable(),
  completed_at: IsoTimeSchema.nullable(),
  created_at: IsoTimeSchema,
});
export type PhaseRunSummary = z.infer<typeof PhaseRunSummarySchema>;

/** [v1] */
export const GateSummarySchema = z.object({
  id: UuidSchema,
  build_request_id: UuidSchema,
  phase_run_id: UuidSchema.nullable(),
  kind: z.string().min(1),
  title: z.string(),
  status: GateStatusSchema,
  decided_at: IsoTimeSchema.nullable(),
  created_at: IsoTimeSchema,
});
export type GateSummary = z.infer<typeof GateSummarySchema>;

export const ClarificationAnswerSchema = z.object({ question: z.string(), answer: z.string() });

/** [seed] */
export const PlanVersionSummarySchema = z.object({
  id: UuidSchema,
  build_request_id: UuidSchema,
  version_no: z.number().int(),
  status: PlanVersionStatusSchema,
  summary: z.string().nullable(),
  confidence_score: z.number().int().nullable(),
  clarifying_questions: z.array(z.string()).default([]),
  clarification_answers: z.array(ClarificationAnswerSchema).default([]),
  created_by_seat_id: UuidSchema.nullable(),
  created_at: IsoTimeSchema,
});
export type PlanVersionSummary = z.infer<typeof PlanVersionSummarySchema>;

/** completed_at/created_at are [seed]; the rest [v1]. A completed task is a resume checkpoint. */
export const TaskSummarySchema = z.object({
  id: UuidSchema,
  build_request_id: UuidSchema,
  plan_version_id: UuidSchema.nullable(),
  ordinal: z.number().int().nonnegative(),
  title: z.string(),
  status: TaskStatusSchema,
  checkpoint_ref: z.string().nullable(),
  completed_at: IsoTimeSchema.nullable(),
  created_at: IsoTimeSchema,
});
export type TaskSummary = z.infer<typeof TaskSummarySchema>;

/** [v1] */
export const ChangesetSummarySchema = z.object({
  id: UuidSchema,
  build_request_id: UuidSchema,
  task_id: UuidSchema.nullable(),
  title: z.string(),
  status: ChangesetStatusSchema,
  branch: z.string().nullable(),
  pr_url: z.string().nullable(),
  additions: z.number().int().nonnegative(),
  deletions: z.number().int().nonnegative(),
  created_at: IsoTimeSchema,
});
export type ChangesetSummary = z.infer<typeof ChangesetSummarySchema>;

// ---- command inputs (strict, as the seed's are) and outputs ----

export const RequestListInputSchema = z.strictObject({
  limit: z.number().int().min(1).max(1000).optional(),
});
export const RequestListOutputSchema = z.object({ requests: z.array(BuildRequestSummarySchema) });
export type RequestListOutput = z.infer<typeof RequestListOutputSchema>;

export const RequestShowInputSchema = z.strictObject({ build_request_id: UuidSchema });

/** [seed] */
export const RequestShowOutputSchema = z.object({
  request: BuildRequestSummarySchema,
  current_phase: WirePhaseSchema,
  phase_runs: z.array(PhaseRunSummarySchema),
  gates: z.array(GateSummarySchema),
  plan_versions: z.array(PlanVersionSummarySchema),
  changesets: z.array(ChangesetSummarySchema),
  tasks: z.array(TaskSummarySchema),
});
export type RequestShowOutput = z.infer<typeof RequestShowOutputSchema>;

/** Trimmed, 1–2000 characters. [seed] */
export const LifecycleReasonSchema = z.string().trim().min(1).max(2000);

/** Ceilings a resume may reset. The seed names the field only; the shape is [v1]. */
export const TerminationBoundSchema = z
  .strictObject({
    max_iterations: z.number().int().positive().max(10_000).optional(),
    max_wall_clock_seconds: z
      .number()
      .int()
      .positive()
      .max(30 * 24 * 3600)
      .optional(),
    cost_budget_usd: DecimalStringSchema.optional(),
  })
  .refine((v) => Object.keys(v).length > 0, 'termination_bound needs at least one ceiling');

export const RequestPauseInputSchema = z.strictObject({
  build_request_id: UuidSchema,
  reason: LifecycleReasonSchema.optional(),
});
export type RequestPauseInput = z.infer<typeof RequestPauseInputSchema>;
export const RequestCancelInputSchema = z.strictObject({
  build_request_id: UuidSchema,
  reason: LifecycleReasonSchema.optional(),
});
export const RequestResumeInputSchema = z.strictObject({
  build_request_id: UuidSchema,
  reason: LifecycleReasonSchema.optional(),
  termination_bound: TerminationBoundSchema.optional(),
});
export type RequestResumeInput = z.infer<typeof RequestResumeInputSchema>;

/** [seed] */
export const LifecycleOutputSchema = z.object({
  build_request_id: UuidSchema,
  status: RequestStatusSchema,
  current_phase: WirePhaseSchema,
  phase_run_id: UuidSchema.nullable(),
  work_order_id: UuidSchema.nullable(),
  resume_from_task_id: UuidSchema.nullable(),
});
export type LifecycleOutput = z.infer<typeof LifecycleOutputSchema>;

/** 202 answer of a human-gated command. [seed: "confirmation handoff"; v1 shape] */
export const ConfirmationHandoffSchema = z.object({
  status: z.literal('confirmation_required'),
  confirmation: z.object({ id: z.string().min(1), url: z.string().min(1), expires_at: IsoTimeSchema }),
});
export type ConfirmationHandoff = z.infer<typeof ConfirmationHandoffSchema>;

export const CONFIRMATION_STATUSES = ['pending', 'confirmed', 'declined', 'expired', 'failed'] as const;
/** `GET /api/confirmations/{id}`: how a handed-off command ended. [v1] */
export const ConfirmationStatusSchema = z.object({
  id: z.string().min(1),
  command_id: z.string(),
  status: z.enum(CONFIRMATION_STATUSES),
  expires_at: IsoTimeSchema,
  output: z.unknown().optional(),
  error: z.object({ error: z.string(), message: z.string().optional() }).optional(),
});
export type ConfirmationStatus = z.infer<typeof ConfirmationStatusSchema>;

export const CapacityListInputSchema = z.strictObject({ runner_id: UuidSchema.optional() });

/** One heartbeat's advisory capacity, as the server recorded it. [v1 shape of a seed concept] */
export const CapacityObservationSummarySchema = z.object({
  id: UuidSchema,
  runner_id: UuidSchema,
  runner_name: z.string(),
  observed_at: IsoTimeSchema,
  os_platform: z.string().nullable(),
  runner_version: z.string().nullable(),
  cpu_count: z.number().int().nullable(),
  cpu_load_percent: z.number().nullable(),
  memory_total_bytes: z.number().nullable(),
  memory_free_bytes: z.number().nullable(),
  active_sessions: z.number().int().nullable(),
  max_sessions: z.number().int().nullable(),
  runtimes: z.array(z.string()),
  model_account_alias: z.string(),
  model_account_state: z.string(),
  paused: z.boolean(),
});
export type CapacityObservationSummary = z.infer<typeof CapacityObservationSummarySchema>;
export const CapacityListOutputSchema = z.object({ observations: z.array(CapacityObservationSummarySchema) });
