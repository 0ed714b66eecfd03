import { z } from 'zod';

/** [seed] (0.7.27 added `paused`) */
export const REQUEST_STATUSES = ['open', 'in_progress', 'paused', 'blocked', 'canceled', 'closed'] as const;
export const RequestStatusSchema = z.enum(REQUEST_STATUSES);
export type RequestStatus = z.infer<typeof RequestStatusSchema>;

/** Phase names are not in the seeds. [v1] */
export const PHASES = ['intake', 'planning', 'plan_review', 'build', 'verify', 'review', 'release'] as const;
export const PhaseSchema = z.enum(PHASES);
export type Phase = z.infer<typeof PhaseSchema>;

/**
 * A phase as a control plane sends it: one of ours, or any other name, kept as it is (the
 * seed's enum is truncated, so a real server may use names we do not know). [v1: tolerant]
 */
export const WirePhaseSchema = z.union([PhaseSchema, z.string().trim().min(1).max(80)]);

/** [seed] */
export const RISK_LEVELS = ['low', 'medium', 'high', 'critical'] as const;
export const RiskLevelSchema = z.enum(RISK_LEVELS);
export type RiskLevel = z.infer<typeof RiskLevelSchema>;

/** `plan_only` is [seed]; the seed truncates the rest, so the others are [v1]. */
export const AUTOMATION_MODES = ['plan_only', 'observe', 'pull_request_only', 'supervised_merge'] as const;
export const AutomationModeSchema = z.enum(AUTOMATION_MODES);

/** An automation mode as sent: a known one, or any other name, kept as it is. [v1: tolerant] */
export const WireAutomationModeSchema = z.union([AutomationModeSchema, z.string().trim().min(1).max(80)]);

/** [seed] */
export const SOURCE_CHANNELS = ['ui', 'cli', 'github_issue', 'linear', 'api'] as const;
export const SourceChannelSchema = z.enum(SOURCE_CHANNELS);
export type SourceChannel = z.infer<typeof SourceChannelSchema>;

/** [v1] */
export const PHASE_RUN_STATUSES = ['queued', 'running', 'paused', 'succeeded', 'failed', 'canceled'] as const;
export const PhaseRunStatusSchema = z.enum(PHASE_RUN_STATUSES);
export type PhaseRunStatus = z.infer<typeof PhaseRunStatusSchema>;

/** [v1] */
export const GATE_STATUSES = ['open', 'approved', 'rejected', 'waived'] as const;
export const GateStatusSchema = z.enum(GATE_STATUSES);

/** [v1] */
export const PLAN_VERSION_STATUSES = ['draft', 'ready_for_review', 'approved', 'rejected', 'superseded'] as const;
export const PlanVersionStatusSchema = z.enum(PLAN_VERSION_STATUSES);

/** [v1] */
export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'skipped'] as const;
export const TaskStatusSchema = z.enum(TASK_STATUSES);

/** [v1] */
export const CHANGESET_STATUSES = ['draft', 'open', 'merged', 'closed'] as const;
export const ChangesetStatusSchema = z.enum(CHANGESET_STATUSES);
