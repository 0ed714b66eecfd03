import { z } from 'zod';
import { deviceCodeStateSchemas } from './device-code';
import {
  WireAutomationModeSchema,
  ChangesetStatusSchema,
  CONFIRMATION_STATUSES,
  GateStatusSchema,
  OperatorRoleSchema,
  PhaseRunStatusSchema,
  WirePhaseSchema,
  PlanVersionStatusSchema,
  RequestStatusSchema,
  RiskLevelSchema,
  SourceChannelSchema,
  TaskStatusSchema,
} from './protocol';
import { TurnRowSchema, TurnViewSchema } from './turns';

/**
 * What the window may know about the operator side: who is signed in, the sign-in code
 * while a device flow runs, and build requests as the UI shows them. Never a token.
 * Every text field that came from the control plane is untrusted display text.
 */

// ---- sign-in and session ----

export const OperatorIdentityViewSchema = z.object({
  operatorId: z.string(),
  tenantId: z.string(),
  name: z.string(),
  role: OperatorRoleSchema,
});
export type OperatorIdentityView = z.infer<typeof OperatorIdentityViewSchema>;

/** An OAuth device flow (RFC 8628): the code and address are meant to be shown. */
export const SignInStateSchema = z.discriminatedUnion('phase', [...deviceCodeStateSchemas, z.object({ phase: z.literal('approved') })]);
export type SignInState = z.infer<typeof SignInStateSchema>;

export const OperatorSessionSchema = z.discriminatedUnion('state', [
  /** No secret store works: sign-in is refused, with the reason. */
  z.object({ state: z.literal('unavailable'), reason: z.string() }),
  z.object({ state: z.literal('signed_out') }),
  /** Tokens were found at start-up and are being read. */
  z.object({ state: z.literal('checking') }),
  z.object({ state: z.literal('signed_in'), identity: OperatorIdentityViewSchema }),
  /** The refresh after a 401 failed: the operator must sign in again. */
  z.object({ state: z.literal('sign_in_again'), reason: z.string() }),
]);

export const OperatorStatusSchema = z.object({
  /** Origin of the control plane the session belongs to. */
  controlPlane: z.string(),
  session: OperatorSessionSchema,
  signIn: SignInStateSchema.nullable(),
  /** Whether pause / resume / cancel are open to this operator, and why not. */
  lifecycle: z.object({ allowed: z.boolean(), reason: z.string().nullable() }),
});
export type OperatorStatus = z.infer<typeof OperatorStatusSchema>;

export const SignOutResultSchema = z.object({
  status: OperatorStatusSchema,
  /** False when the control plane could not be told; the tokens are gone locally either way. */
  revoked: z.boolean(),
  message: z.string().nullable(),
});
export type SignOutResult = z.infer<typeof SignOutResultSchema>;

// ---- build requests ----

export const RequestSummaryViewSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  title: z.string(),
  status: RequestStatusSchema,
  sourceChannel: SourceChannelSchema,
  currentPhase: WirePhaseSchema,
  risk: RiskLevelSchema,
  automationMode: WireAutomationModeSchema,
  maxIterations: z.number().int().nullable(),
  iterationsUsed: z.number().int(),
  maxWallClockSeconds: z.number().int().nullable(),
  /** A decimal string, e.g. "25.00". */
  costBudgetUsd: z.string().nullable(),
  createdAt: z.string(),
  /** Why it is paused, canceled or blocked, when the control plane says ([v1] `status_reason`). */
  statusReason: z.string().nullable().optional(),
});
export type RequestSummaryView = z.infer<typeof RequestSummaryViewSchema>;

/** An active turn of this runner that belongs to a build request. */
export const TurnHereSchema = z.object({ turnId: z.string(), buildRequestId: z.string() });

export const RequestBoardSchema = z.object({
  requests: z.array(RequestSummaryViewSchema),
  /** This runner's active turns that belong to a request (so the board can say which it works on). */
  activeHere: z.array(TurnHereSchema),
  fetchedAt: z.string(),
});
export type RequestBoard = z.infer<typeof RequestBoardSchema>;

export const PhaseRunViewSchema = z.object({
  id: z.string(),
  phase: WirePhaseSchema,
  status: PhaseRunStatusSchema,
  attempt: z.number().int(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type PhaseRunView = z.infer<typeof PhaseRunViewSchema>;

export const GateViewSchema = z.object({
  id: z.string(),
  kind: z.string(),
  title: z.string(),
  status: GateStatusSchema,
  phaseRunId: z.string().nullable(),
  decidedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type GateView = z.infer<typeof GateViewSchema>;

export const PlanVersionViewSchema = z.object({
  id: z.string(),
  versionNo: z.number().int(),
  status: PlanVersionStatusSchema,
  summary: z.string().nullable(),
  confidenceScore: z.number().int().nullable(),
  clarifyingQuestions: z.array(z.string()),
  answers: z.array(z.object({ question: z.string(), answer: z.string() })),
  createdAt: z.string(),
});
export type PlanVersionView = z.infer<typeof PlanVersionViewSchema>;

export const TaskViewSchema = z.object({
  id: z.string(),
  ordinal: z.number().int(),
  title: z.string(),
  status: TaskStatusSchema,
  planVersionId: z.string().nullable(),
  checkpointRef: z.string().nullable(),
  completedAt: z.string().nullable(),
});
export type TaskView = z.infer<typeof TaskViewSchema>;

export const ChangesetViewSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: ChangesetStatusSchema,
  branch: z.string().nullable(),
  prUrl: z.string().nullable(),
  additions: z.number().int(),
  deletions: z.number().int(),
  taskId: z.string().nullable(),
});
export type ChangesetView = z.infer<typeof ChangesetViewSchema>;

export const RequestDetailViewSchema = z.object({
  request: RequestSummaryViewSchema,
  phaseRuns: z.array(PhaseRunViewSchema),
  gates: z.array(GateViewSchema),
  planVersions: z.array(PlanVersionViewSchema),
  tasks: z.array(TaskViewSchema),
  changesets: z.array(ChangesetViewSchema),
  /** This runner's turns for the request: running now, and finished (newest first). */
  turns: z.object({ active: z.array(TurnViewSchema), history: z.array(TurnRowSchema) }),
  fetchedAt: z.string(),
});
export type RequestDetailView = z.infer<typeof RequestDetailViewSchema>;

// ---- lifecycle ----

export const LIFECYCLE_ACTIONS = ['pause', 'resume', 'cancel'] as const;
export type LifecycleAction = (typeof LIFECYCLE_ACTIONS)[number];

export const REASON_MAX = 2000;

/** The reason as the seed takes it: trimmed, 1–2000 characters; blank means "no reason". */
export function parseReason(raw: string | undefined): { ok: true; value: string | undefined } | { ok: false; message: string } {
  const trimmed = (raw ?? '').trim();
  if (trimmed.length === 0) return { ok: true, value: undefined };
  if (trimmed.length > REASON_MAX) return { ok: false, message: `The reason can be at most ${REASON_MAX} characters (it has ${trimmed.length}).` };
  return { ok: true, value: trimmed };
}

export const LifecycleInputSchema = z
  .object({
    id: z.uuid(),
    // Bounded here; trimmed and checked (1–2000) by the core, which names the field.
    reason: z.string().max(20_000).optional(),
  })
  .strict();

/**
 * Ceilings a resume raises when the control plane refused it for one ([v1]
 * `termination_bound`): each optional, at least one, each within the wire's bounds.
 */
export const ResumeBoundSchema = z
  .object({
    maxIterations: z
      .number()
      .int('Iterations must be a whole number.')
      .positive('Iterations must be above 0.')
      .max(10_000, 'At most 10,000 iterations.')
      .optional(),
    maxWallClockSeconds: z
      .number()
      .int('The wall-clock limit must be whole seconds.')
      .positive('The wall-clock limit must be above 0.')
      .max(30 * 24 * 3600, 'At most 30 days of wall clock.')
      .optional(),
    costBudgetUsd: z
      .string()
      .regex(/^\d{1,9}(\.\d{1,6})?$/, 'The budget is dollars, like 25.00.')
      .optional(),
  })
  .strict()
  .refine((v) => Object.values(v).some((x) => x !== undefined), 'Give at least one ceiling to raise.');
export type ResumeBound = z.infer<typeof ResumeBoundSchema>;

/** `requests:resume`: a lifecycle input, with the ceilings to raise when asked. */
export const ResumeInputSchema = z
  .object({
    id: z.uuid(),
    reason: z.string().max(20_000).optional(),
    terminationBound: ResumeBoundSchema.optional(),
  })
  .strict();

export const LifecycleResultViewSchema = z.object({
  status: RequestStatusSchema,
  currentPhase: WirePhaseSchema,
  phaseRunId: z.string().nullable(),
  workOrderId: z.string().nullable(),
  resumeFromTaskId: z.string().nullable(),
});
export type LifecycleResultView = z.infer<typeof LifecycleResultViewSchema>;

export const LifecycleOutcomeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('done'), result: LifecycleResultViewSchema }),
  /** The control plane wants a human to confirm in the browser (202 handoff). */
  z.object({ kind: z.literal('confirmation_required'), confirmationId: z.string(), url: z.string(), expiresAt: z.string() }),
]);
export type LifecycleOutcome = z.infer<typeof LifecycleOutcomeSchema>;

export const ConfirmationViewSchema = z.object({
  id: z.string(),
  status: z.enum(CONFIRMATION_STATUSES),
  expiresAt: z.string(),
  result: LifecycleResultViewSchema.nullable(),
  /** Why a confirmed command failed, in one line (untrusted display text). */
  error: z.string().nullable(),
});
export type ConfirmationView = z.infer<typeof ConfirmationViewSchema>;

/**
 * Only http(s) addresses (no user name or password, no spaces or control characters)
 * become links; anything else stays text. Pure, so both the core and the window use it.
 */
export function isHttpUrl(value: string | null | undefined): value is string {
  if (!value || value.length > 2048) return false;
  // oxlint-disable-next-line no-control-regex -- the control characters are what this refuses.
  return /^https?:\/\/[^\s/?#@\\]+(?:[/?#][^\s\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]*)?$/i.test(value);
}

/**
 * The tenant's runner capacity as its runners last reported it (`software_factory.capacity.list`,
 * read-only, advisory): one row per runner, its newest observation.
 */
export const CapacityViewSchema = z.object({
  runners: z.array(
    z.object({
      runnerId: z.string(),
      name: z.string(),
      runtimes: z.array(z.string()),
      activeSessions: z.number().int().nullable(),
      maxSessions: z.number().int().nullable(),
      /** The model account's usage state the runner reported (`available`, `limited until …`, …). */
      usageState: z.string(),
      paused: z.boolean(),
      observedAt: z.string(),
    }),
  ),
});
export type CapacityView = z.infer<typeof CapacityViewSchema>;
