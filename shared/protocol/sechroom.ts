import { z } from 'zod';
import { IsoTimeSchema } from './common';

/**
 * Sechroom Work Layer wire (docs/protocol.md, "Sechroom Work Layer"). Field names are the
 * seed CLI's (camelCase). Response schemas strip unknown fields; request schemas tolerate
 * them (a newer client may send more), but every field the server reads is typed.
 */

const Id = z.string().min(1).max(200);
/** Completion titles are `<task title> — driven closeout` [seed B6.7]: room for a 500-character task title. */
const TitleText = z.string().max(1000);
/** Completion text carries the closeout summary, evidence and the delivery note: generous, within the 1 MiB body cap. */
const LongText = z.string().max(512 * 1024);

/** Headers every Work Layer call carries besides the bearer. [seed B3] */
export const SECHROOM_TENANT_HEADER = 'tenant';
export const SECHROOM_SURFACE_HEADER = 'x-sechroom-surface';
/** OAuth scope of Work Layer tokens. [v1] */
export const SECHROOM_SCOPE = 'sechroom';

/** Memory ids (`mem_…`) name tasks, briefs and completions; work plans are `wlp_…`. [seed B4] */
export const MemoryIdSchema = z.string().regex(/^mem_[A-Za-z0-9_-]{1,120}$/, 'expected a memory id (mem_…)');
export const DecompositionIdSchema = z.string().regex(/^wlp_[A-Za-z0-9_-]{1,120}$/, 'expected a work-plan id (wlp_…)');

export const INSTANCE_TTL_MIN_S = 30;
export const INSTANCE_TTL_MAX_S = 600;
export const InstanceTtlSchema = z.number().int().min(INSTANCE_TTL_MIN_S).max(INSTANCE_TTL_MAX_S);

// ---- executor instances (E1, E2, E10) ----

/** `executorRegistrationInput` [seed B1.3]; `POST /me/executor-instances` is our path [v1]. */
export const ExecutorRegistrationInputSchema = z.object({
  relayId: Id.nullish(),
  instanceKey: Id,
  laneId: Id.nullish(),
  runtimeKind: z.string().min(1).max(60).nullish(),
  activationMode: z.string().min(1).max(60).nullish(),
  deliverySubscriptionId: Id.nullish(),
  connectorId: Id.nullish(),
  claimedCapabilityKeys: z.array(z.string().min(1).max(200)).max(200).nullish(),
  toolSetRef: Id.nullish(),
  /** null (the seed's `--ttl abc` serialises NaN as null) means "not given". [v1] */
  ttlSeconds: InstanceTtlSchema.nullish(),
});
export type ExecutorRegistrationInput = z.infer<typeof ExecutorRegistrationInputSchema>;

export const ExecutorInstanceSchema = z.object({
  id: Id,
  instanceKey: Id,
  laneId: Id,
  relayId: Id.nullable().optional(),
  runtimeKind: z.string().nullable().optional(),
  activationMode: z.string().nullable().optional(),
  connectorId: Id.nullable().optional(),
  claimedCapabilityKeys: z.array(z.string()).optional(),
  ttlSeconds: z.number().int().optional(),
  status: z.enum(['live', 'lapsed', 'deregistered']).optional(),
  registeredAt: IsoTimeSchema.optional(),
  expiresAt: IsoTimeSchema,
});
export type ExecutorInstance = z.infer<typeof ExecutorInstanceSchema>;

export const InstanceRefreshInputSchema = z.object({ ttlSeconds: InstanceTtlSchema.nullish() });
export const InstanceRefreshResponseSchema = z.object({ id: Id, ttlSeconds: z.number().int(), expiresAt: IsoTimeSchema });
export const InstanceDeregisterResponseSchema = z.object({ id: Id, deregistered: z.literal(true) });

// ---- dispatch offers and claims (E3, E4, E5) ----

export const DispatchOfferSchema = z.object({
  generationId: Id,
  memoryId: MemoryIdSchema,
  title: z.string().optional(),
  decompositionId: z.string().optional(),
  laneId: z.string().nullable().optional(),
  tags: z.array(z.string()),
  suggestedClaimDelayMs: z.number().int().nonnegative(),
  offeredAt: IsoTimeSchema.optional(),
});
export type DispatchOffer = z.infer<typeof DispatchOfferSchema>;
export const DispatchOffersSchema = z.array(DispatchOfferSchema);

/**
 * `GET /me/executor-instances/{id}/lease-notices?waitMs=&canceling=` [v1]: the instance's leases
 * the Work Layer canceled (`cancel_requested`, or ended `canceled` by their brief), but those
 * the executor named in `canceling`; the read is held until there is one or the wait ends.
 */
export const LeaseNoticesSchema = z.object({
  cancels: z.array(z.object({ leaseId: Id, status: z.enum(['cancel_requested', 'canceled']), reason: z.string().nullable().optional() })).max(100),
});
export type SechroomLeaseNotices = z.infer<typeof LeaseNoticesSchema>;

export const ClaimNextInputSchema = z.object({ idempotencyKey: z.string().min(1).max(300) });
export const DirectClaimInputSchema = z.object({ generationId: Id, executorInstanceId: Id });

/** `Claimed`/`AlreadyHeld` carry a lease [seed]; `NoOffer` stops [seed]; every other value sends the seed client to the direct claim. */
export const CLAIM_OUTCOMES = ['Claimed', 'AlreadyHeld', 'NoOffer', 'Superseded', 'Taken', 'NotEligible', 'NotFound', 'InstanceLapsed'] as const;
export const ClaimOutcomeSchema = z.enum(CLAIM_OUTCOMES);
export type ClaimOutcome = z.infer<typeof ClaimOutcomeSchema>;

export const TaskLeaseSchema = z.object({
  id: Id,
  memoryId: MemoryIdSchema,
  workspaceId: Id,
  generationId: Id,
  expiresAt: IsoTimeSchema,
  executorInstanceId: Id.optional(),
  tokenVersion: z.number().int().positive().optional(),
});

/** A claim answer (claim-next or direct). A client must not trust a claim without `lease.id` and `claimToken`. */
export const ClaimResultSchema = z.object({
  outcome: z.string().min(1),
  lease: TaskLeaseSchema.optional(),
  /** Lease-scoped secret: never log it. */
  claimToken: z.string().min(1).optional(),
  tokenVersion: z.number().int().positive().optional(),
  offer: DispatchOfferSchema.optional(),
  reason: z.string().optional(),
});
export type ClaimResult = z.infer<typeof ClaimResultSchema>;

// ---- leases (E8, E9) ----

export const LeaseHeartbeatInputSchema = z.object({
  claimToken: z.string().min(1).max(300),
  tokenVersion: z.number().int().positive().optional(),
});
export const LEASE_HEARTBEAT_STATUSES = ['active', 'cancel_requested', 'expired', 'completed', 'canceled'] as const;
/** The seed ignores this answer; ours stops a turn on `cancel_requested` or an ended lease. [v1] */
export const LeaseHeartbeatResponseSchema = z.object({
  leaseId: Id,
  status: z.enum(LEASE_HEARTBEAT_STATUSES),
  expiresAt: IsoTimeSchema,
  reason: z.string().nullable().optional(),
});
export type SechroomLeaseHeartbeatResponse = z.infer<typeof LeaseHeartbeatResponseSchema>;

export const VERDICTS = ['pass', 'soft-fail', 'plan-invalid', 'blocked'] as const;
export const VerdictSchema = z.enum(VERDICTS);
export type Verdict = z.infer<typeof VerdictSchema>;

export const LeaseCompleteInputSchema = z.object({
  executorInstanceId: Id,
  claimToken: z.string().min(1).max(300),
  tokenVersion: z.number().int().positive().optional(),
  verdict: VerdictSchema,
  text: LongText,
  source: z.string().min(1).max(200),
  title: TitleText,
});
export type LeaseCompleteInput = z.infer<typeof LeaseCompleteInputSchema>;
export const LeaseCompleteResponseSchema = z.object({
  outcome: z.literal('Completed'),
  completionMemoryId: MemoryIdSchema,
  leaseId: Id.optional(),
  /** True when this answers a repeat of an already recorded completion. [v1] */
  repeated: z.boolean().optional(),
});

// ---- task card and context pack (E6, E7) ----

export const TaskCardSchema = z.object({
  taskId: MemoryIdSchema,
  title: z.string().nullable().optional(),
  task: z.object({
    objective: z.string(),
    acceptance: z.string(),
    boundaries: z.string(),
    closeout: z.string(),
  }),
  contextPack: z
    .object({ slug: z.string().min(1), version: z.string().min(1) })
    .nullable()
    .optional(),
  decompositionId: z.string().optional(),
  laneId: z.string().nullable().optional(),
});
export type TaskCard = z.infer<typeof TaskCardSchema>;

export const BundleComponentSchema = z.object({ title: z.string().max(500).nullable().optional(), body: z.string().max(256 * 1024) });
export const BundlePackageSchema = z.object({
  slug: z.string().optional(),
  version: z.string().optional(),
  components: z.array(BundleComponentSchema),
});
export type BundlePackage = z.infer<typeof BundlePackageSchema>;

// ---- run telemetry (E11) ----

export const TELEMETRY_KINDS = ['Raw', 'Parsed', 'Approval', 'Terminal'] as const;
export const TelemetryKindSchema = z.enum(TELEMETRY_KINDS);
const meter = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).nullish();

/** One event: the executor's fields (B10) or the CLI's subset without modelId and ids. [seed] */
export const RunTelemetryEventSchema = z.object({
  taskId: z.string().min(1).max(200),
  kind: z.preprocess((v) => (typeof v === 'string' ? (TELEMETRY_KINDS.find((k) => k.toLowerCase() === v.toLowerCase()) ?? v) : v), TelemetryKindSchema),
  tokensIn: meter,
  tokensOut: meter,
  contextUsed: meter,
  contextWindow: meter,
  text: LongText.nullish(),
  approvalState: z.string().max(100).nullish(),
  verdict: VerdictSchema.nullish(),
  modelId: z.string().max(200).nullish(),
  executorInstanceId: Id.nullish(),
  leaseId: Id.nullish(),
  turnId: Id.nullish(),
});
export type RunTelemetryEvent = z.infer<typeof RunTelemetryEventSchema>;
export const RunTelemetryInputSchema = z.object({ events: z.array(RunTelemetryEventSchema).min(1).max(500) });
export const RunTelemetryIngestResponseSchema = z.object({ eventCount: z.number().int().nonnegative(), accepted: z.number().int().optional() });

export const TaskMetersSchema = z.object({
  taskId: z.string(),
  tokensIn: z.number().nullable(),
  tokensOut: z.number().nullable(),
  contextUsed: z.number().nullable(),
  contextWindow: z.number().nullable(),
  modelId: z.string().nullable(),
  verdict: VerdictSchema.nullable(),
  lastKind: TelemetryKindSchema,
  eventCount: z.number().int(),
  lastEventAt: IsoTimeSchema,
});
export const TimelineEntrySchema = RunTelemetryEventSchema.extend({ seq: z.number().int(), at: IsoTimeSchema });
export const RunTelemetryReadSchema = z.object({
  decompositionId: z.string(),
  hasTelemetry: z.boolean(),
  eventCount: z.number().int().optional(),
  tasks: z.array(TaskMetersSchema).optional(),
  timeline: z.array(TimelineEntrySchema).optional(),
});

// ---- work briefs and work plans (B13) ----

export const BRIEF_STATUSES = ['ready_for_decomposition', 'paused', 'parked', 'superseded', 'cancelled'] as const;
export const BriefStatusSchema = z.enum(BRIEF_STATUSES);
export type BriefStatus = z.infer<typeof BriefStatusSchema>;
/** Which brief states each operator verb leaves from; the others are 409 `invalid_transition`. [v1] */
export const BRIEF_VERB_FROM = {
  pause: ['ready_for_decomposition'],
  resume: ['paused'],
  cancel: ['ready_for_decomposition', 'paused', 'parked'],
  park: ['ready_for_decomposition', 'paused'],
  unpark: ['parked'],
  supersede: ['ready_for_decomposition', 'paused', 'parked'],
} as const satisfies Record<string, readonly BriefStatus[]>;
/** `POST /work-briefs/{id}/status` targets. [seed] */
export const BRIEF_STATUS_TARGETS = ['status:parked', 'status:ready_for_decomposition', 'status:superseded'] as const;
export const BriefStatusInputSchema = z.object({
  id: Id.optional(),
  to: z.enum(BRIEF_STATUS_TARGETS),
  source: z.string().min(1).max(200),
});
/** `work-brief pause|resume|cancel --reason-code --source [--reason]`; the path `/work-briefs/{id}/{action}` is ours. [v1] */
export const BriefLifecycleInputSchema = z.object({
  reasonCode: z.string().min(1).max(100),
  source: z.string().min(1).max(200),
  reason: z.string().max(2000).nullish(),
});
export const WorkBriefSchema = z.object({
  id: MemoryIdSchema,
  title: z.string(),
  status: BriefStatusSchema,
  workspaceId: z.string(),
  reasonCode: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
  source: z.string().nullable().optional(),
  updatedAt: IsoTimeSchema,
});
export const WorkBriefListQuerySchema = z.object({
  status: BriefStatusSchema.optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
  pageSize: z.coerce.number().int().min(1).max(200).optional(),
});
export const WorkBriefListSchema = z.object({ items: z.array(WorkBriefSchema), count: z.number().int(), page: z.number().int(), pageSize: z.number().int() });
export const BriefStatusResponseSchema = z.object({
  id: MemoryIdSchema,
  from: BriefStatusSchema,
  to: z.string(),
  status: BriefStatusSchema,
  changed: z.boolean(),
});
export const BriefLifecycleResponseSchema = WorkBriefSchema.extend({ action: z.enum(['pause', 'resume', 'cancel']), changed: z.boolean() });

export const DECOMPOSITION_STATUSES = ['Pending', 'Accepted', 'Failed', 'Completed', 'ReturnedForRevision', 'Cancelled'] as const;
export const DecompositionStatusSchema = z.enum(DECOMPOSITION_STATUSES);
export type DecompositionStatus = z.infer<typeof DecompositionStatusSchema>;
export const DecompositionSchema = z.object({
  id: DecompositionIdSchema,
  briefId: MemoryIdSchema,
  title: z.string(),
  status: DecompositionStatusSchema,
  taskCount: z.number().int(),
  revisionOf: z.string().nullable().optional(),
  revisionNotes: z.string().nullable().optional(),
  createdAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
});
export const DecompositionListQuerySchema = z.object({
  status: DecompositionStatusSchema.optional(),
  briefId: z.string().max(200).optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
  pageSize: z.coerce.number().int().min(1).max(200).optional(),
});
export const DecompositionListSchema = z.object({
  items: z.array(DecompositionSchema),
  count: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export const DecompositionResumeResponseSchema = z.object({ id: DecompositionIdSchema, status: DecompositionStatusSchema, reoffered: z.number().int() });
export const ReturnForRevisionInputSchema = z.object({ notes: z.string().min(1).max(10_000) });
export const ReturnForRevisionResponseSchema = z.object({
  id: DecompositionIdSchema,
  status: DecompositionStatusSchema,
  newSuggestionId: DecompositionIdSchema,
});

export const TASK_STATUSES = ['proposed', 'ready', 'leased', 'completed', 'canceled'] as const;
export const TaskStatusValueSchema = z.enum(TASK_STATUSES);
export const WorkTaskSchema = z.object({
  memoryId: MemoryIdSchema,
  title: z.string(),
  status: TaskStatusValueSchema,
  decompositionId: DecompositionIdSchema,
  laneId: z.string().nullable(),
  verdict: VerdictSchema.nullable(),
  generationId: z.string().nullable(),
  createdAt: IsoTimeSchema,
  /** [v1] The active lease: which executor instance holds the task now. */
  lease: z
    .object({
      id: z.string(),
      executorInstanceId: z.string(),
      instanceKey: z.string().nullable(),
      laneId: z.string().nullable(),
      expiresAt: IsoTimeSchema,
      cancelRequested: z.boolean(),
    })
    .nullable()
    .optional(),
  /** [v1] The task's last completion. */
  lastCompletion: z
    .object({ completionMemoryId: z.string(), verdict: VerdictSchema, title: z.string(), source: z.string(), receivedAt: IsoTimeSchema })
    .nullable()
    .optional(),
});
export type WorkTask = z.infer<typeof WorkTaskSchema>;
export const WorkTaskListQuerySchema = z.object({
  lane: z.string().max(200).optional(),
  /** [v1] The tasks of one work plan. */
  decompositionId: z.string().max(200).optional(),
  status: TaskStatusValueSchema.optional(),
  page: z.coerce.number().int().min(1).max(100_000).optional(),
  pageSize: z.coerce.number().int().min(1).max(200).optional(),
});
export const WorkTaskListSchema = z.object({ items: z.array(WorkTaskSchema), count: z.number().int(), page: z.number().int(), pageSize: z.number().int() });

/** `GET /me`: who the bearer is, and the tenant the `tenant` header must name. [v1] */
export const SechroomIdentitySchema = z.object({ operatorId: z.string(), name: z.string(), tenant: z.string(), tenantName: z.string(), scope: z.string() });
