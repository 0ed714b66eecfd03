import { z } from 'zod';
import {
  WireAutomationModeSchema,
  ChangesetStatusSchema,
  ClarificationAnswerSchema,
  DecimalStringSchema,
  GateStatusSchema,
  PhaseRunStatusSchema,
  WirePhaseSchema,
  PlanVersionStatusSchema,
  RequestStatusSchema,
  RiskLevelSchema,
  SourceChannelSchema,
  TaskStatusSchema,
} from '../../../shared/protocol';

/** Admin inputs to build Forge state in any shape a test needs. */
export const CreateProjectInputSchema = z.strictObject({
  id: z.uuid().optional(),
  tenant_id: z.string().min(1).optional(),
  name: z.string().trim().min(1).max(200),
  slug: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[a-z0-9-]+$/)
    .optional(),
  status: z.string().min(1).max(40).optional(),
  base_branch: z.string().min(1).max(200).optional(),
});
export type CreateProjectInput = z.input<typeof CreateProjectInputSchema>;

const ceilings = {
  max_iterations: z.number().int().positive().nullable().optional(),
  max_wall_clock_seconds: z.number().int().positive().nullable().optional(),
  cost_budget_usd: DecimalStringSchema.nullable().optional(),
  iterations_used: z.number().int().nonnegative().optional(),
};

export const CreateBuildRequestInputSchema = z.strictObject({
  id: z.uuid().optional(),
  tenant_id: z.string().min(1).optional(),
  /** Defaults to the tenant's first project (created when there is none). */
  software_project_id: z.uuid().optional(),
  title: z.string().min(1).max(2000),
  status: RequestStatusSchema.optional(),
  status_reason: z.string().max(2000).nullable().optional(),
  source_channel: SourceChannelSchema.optional(),
  current_phase: WirePhaseSchema.optional(),
  inferred_risk: RiskLevelSchema.optional(),
  risk_ceiling: RiskLevelSchema.nullable().optional(),
  automation_mode: WireAutomationModeSchema.optional(),
  ...ceilings,
  /** Also record a phase run for the current phase (default true). */
  with_phase_run: z.boolean().optional(),
});
export type CreateBuildRequestInput = z.input<typeof CreateBuildRequestInputSchema>;

export const UpdateBuildRequestInputSchema = z.strictObject({
  title: z.string().min(1).max(2000).optional(),
  status: RequestStatusSchema.optional(),
  status_reason: z.string().max(2000).nullable().optional(),
  current_phase: WirePhaseSchema.optional(),
  inferred_risk: RiskLevelSchema.optional(),
  risk_ceiling: RiskLevelSchema.nullable().optional(),
  automation_mode: WireAutomationModeSchema.optional(),
  ...ceilings,
});
export type UpdateBuildRequestInput = z.input<typeof UpdateBuildRequestInputSchema>;

export const AddPhaseRunInputSchema = z.strictObject({
  id: z.uuid().optional(),
  phase: WirePhaseSchema,
  status: PhaseRunStatusSchema.optional(),
  attempt: z.number().int().positive().optional(),
});
export const AddGateInputSchema = z.strictObject({
  id: z.uuid().optional(),
  phase_run_id: z.uuid().nullable().optional(),
  kind: z.string().min(1).max(100),
  title: z.string().min(1).max(500),
  status: GateStatusSchema.optional(),
});
export const AddPlanVersionInputSchema = z.strictObject({
  id: z.uuid().optional(),
  version_no: z.number().int().positive().optional(),
  status: PlanVersionStatusSchema.optional(),
  summary: z.string().max(8000).nullable().optional(),
  confidence_score: z.number().int().min(0).max(100).nullable().optional(),
  clarifying_questions: z.array(z.string().max(2000)).max(50).optional(),
  clarification_answers: z.array(ClarificationAnswerSchema).max(50).optional(),
  created_by_seat_id: z.uuid().nullable().optional(),
});
export const AddTaskInputSchema = z.strictObject({
  id: z.uuid().optional(),
  plan_version_id: z.uuid().nullable().optional(),
  ordinal: z.number().int().nonnegative().optional(),
  title: z.string().min(1).max(500),
  status: TaskStatusSchema.optional(),
  checkpoint_ref: z.string().max(500).nullable().optional(),
});
export const AddChangesetInputSchema = z.strictObject({
  id: z.uuid().optional(),
  task_id: z.uuid().nullable().optional(),
  title: z.string().min(1).max(500),
  status: ChangesetStatusSchema.optional(),
  branch: z.string().max(300).nullable().optional(),
  pr_url: z.string().max(2000).nullable().optional(),
  additions: z.number().int().nonnegative().optional(),
  deletions: z.number().int().nonnegative().optional(),
});
export const UpdateTaskInputSchema = z.strictObject({
  status: TaskStatusSchema.optional(),
  checkpoint_ref: z.string().max(500).nullable().optional(),
  title: z.string().min(1).max(500).optional(),
});
export const UpdateGateInputSchema = z.strictObject({ status: GateStatusSchema });

export type AddPhaseRunInput = z.input<typeof AddPhaseRunInputSchema>;
export type AddGateInput = z.input<typeof AddGateInputSchema>;
export type AddPlanVersionInput = z.input<typeof AddPlanVersionInputSchema>;
export type AddTaskInput = z.input<typeof AddTaskInputSchema>;
export type AddChangesetInput = z.input<typeof AddChangesetInputSchema>;
export type UpdateTaskInput = z.input<typeof UpdateTaskInputSchema>;
export type UpdateGateInput = z.input<typeof UpdateGateInputSchema>;
