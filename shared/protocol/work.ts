import { z } from 'zod';
import { IsoTimeSchema, OpaqueIdSchema } from './common';
import { HeartbeatRequestSchema, HeartbeatResponseSchema } from './heartbeat';

export const UNIT_KINDS = ['turn_execution', 'work_order'] as const;
export const UnitKindSchema = z.enum(UNIT_KINDS);
export type UnitKind = z.infer<typeof UnitKindSchema>;

/** Path segment of each kind: `/api/runner/{segment}/{id}/start|heartbeat|result`. */
export const UNIT_PATH_SEGMENT = { turn_execution: 'turn-executions', work_order: 'work-orders' } as const satisfies Record<UnitKind, string>;

/** `POST /api/runner/work-orders/claim` body. [seed + v1 wait_ms] */
export const ClaimRequestSchema = z.object({
  interactive_only: z.boolean().optional(),
  /** Only when the heartbeat advertised `claim.long_poll_max_ms`; the server caps it there. [v1] */
  wait_ms: z.number().int().nonnegative().max(600_000).optional(),
  /**
   * The runtimes this runner can run right now (installed, allowed, ready). A server that
   * knows the field hands out only units whose brain is one of them (or `auto`); one that
   * ignores it may still hand out another, which the runner reports as the seed does. [v1]
   */
  runtimes: z
    .array(z.enum(['claude', 'codex']))
    .max(2)
    .optional(),
  /** The heartbeat, carried on a long-poll claim: only when the heartbeat advertised `claim.carries_heartbeat`. [v1] */
  heartbeat: HeartbeatRequestSchema.optional(),
  /** Answer early with the cancels of this runner's running units: only when the heartbeat advertised `claim.cancel_notices`. [v1] */
  notices: z.boolean().optional(),
  /** Take no unit: a read held only for cancel notices, while every slot is busy. Implies `notices`. [v1] */
  notices_only: z.boolean().optional(),
  /** The units whose cancel this runner already heard and is acting on: not told again. [v1] */
  canceling: z.array(OpaqueIdSchema).max(100).optional(),
});
export type ClaimRequest = z.infer<typeof ClaimRequestSchema>;

/**
 * The largest prompt a unit may carry, in UTF-8 bytes, as the runtime receives it (the
 * unit's prompt with its context packet). A larger one is reported failed before
 * anything runs. [v1]
 */
export const UNIT_PROMPT_MAX_BYTES = 1024 * 1024;

export const UnitMcpSchema = z.object({
  url: z.string().min(1).default('/mcp'),
  /** Short-lived, unit-scoped bearer for the MCP endpoint: treat as a secret. */
  token: z.string().min(1),
  expires_at: IsoTimeSchema.optional(),
});

export const UnitLeaseSchema = z.object({
  heartbeat_ms: z.number().int().positive(),
  expires_at: IsoTimeSchema,
});

/**
 * A claimed unit. Unknown fields are tolerated. `brain` is a free string so a unit
 * asking for a runtime this client lacks still parses and gets reported `failed`
 * (seed behaviour); `context_packet` is validated separately with the strict schema
 * so a bad packet fails the unit instead of hiding it.
 */
export const ClaimedUnitSchema = z.object({
  id: OpaqueIdSchema,
  kind: UnitKindSchema.optional(),
  brain: z.string().min(1).optional(),
  prompt: z.string().default(''),
  mcp: UnitMcpSchema.optional(),
  seat: z
    .object({ id: z.string().min(1), name: z.string().optional() })
    .nullable()
    .optional(),
  charter_ref: z
    .object({ seat_id: z.string().min(1).optional() })
    .nullable()
    .optional(),
  user_id: z.string().min(1).nullable().optional(),
  session_id: z.string().min(1).nullable().optional(),
  aicos: z
    .object({ session_id: z.string().min(1).optional() })
    .nullable()
    .optional(),
  build_request_id: z.string().min(1).nullable().optional(),
  phase_run_id: z.string().min(1).nullable().optional(),
  context_packet: z.unknown().optional(),
  timeout_ms: z.number().int().positive().optional(),
  lease: UnitLeaseSchema.optional(),
  /** 1 on the first claim, +1 each time the unit is handed out again. [v1] */
  attempt: z.number().int().positive().optional(),
});
export type ClaimedUnit = z.infer<typeof ClaimedUnitSchema>;

/** One cancel notice: the unit, its kind, and why (the lease heartbeat's `reason` words). [v1] */
export const CancelNoticeSchema = z.object({
  unit_id: OpaqueIdSchema,
  kind: UnitKindSchema,
  reason: z.string().optional(),
});
export type CancelNotice = z.infer<typeof CancelNoticeSchema>;

/**
 * `GET /api/runner/lanes` [v1]: the work the plane would hand this runner now, by runtime
 * (`auto`: a unit that names none), nothing claimed; `sandbox: "required"` when the plane
 * runs that lane's work only under an OS sandbox. For `--dry-run`.
 */
export const LanesResponseSchema = z.object({
  lanes: z
    .array(z.object({ runtime: z.string().min(1).max(40), queued: z.number().int().nonnegative(), sandbox: z.enum(['required', 'optional']).optional() }))
    .max(50),
});
export type LanesResponse = z.infer<typeof LanesResponseSchema>;
export type PlaneLane = LanesResponse['lanes'][number];

/** 200 answer of a claim; `{}` (or a 204) means nothing to do. */
export const ClaimResponseSchema = z.object({
  turn_execution: ClaimedUnitSchema.optional(),
  work_order: ClaimedUnitSchema.optional(),
  /** The answer to a heartbeat the claim carried (then `{}` becomes `{ heartbeat }`, never a 204). [v1] */
  heartbeat: HeartbeatResponseSchema.optional(),
  /** Cancels of this runner's running units not in its `canceling`, on a claim that asked for `notices`. [v1] */
  cancels: z.array(CancelNoticeSchema).max(100).optional(),
});

/** The id field the seed sends with a unit's start and result: `turn_execution_id` or `work_order_id`. [seed] */
export const UNIT_ID_FIELD = { turn_execution: 'turn_execution_id', work_order: 'work_order_id' } as const satisfies Record<UnitKind, string>;

/** `POST …/{id}/start` body: the seed's id field, nothing else. [seed] */
export const StartRequestSchema = z.object({
  turn_execution_id: OpaqueIdSchema.optional(),
  work_order_id: OpaqueIdSchema.optional(),
});

/** `POST …/{id}/start` 2xx answer. Only the status matters to the seed client. [v1 body] */
export const StartResponseSchema = z.object({
  started: z.literal(true),
  lease: UnitLeaseSchema.optional(),
});
export type StartResponse = z.infer<typeof StartResponseSchema>;

export const LEASE_STATUSES = ['active', 'pause_requested', 'cancel_requested'] as const;
export const LeaseStatusSchema = z.enum(LEASE_STATUSES);
export type LeaseStatus = z.infer<typeof LeaseStatusSchema>;

/** `POST …/{id}/heartbeat` body: optional progress the runner may share. [v1] */
export const LeaseHeartbeatRequestSchema = z.object({
  elapsed_ms: z.number().int().nonnegative().optional(),
  output_tail_bytes: z.number().int().nonnegative().optional(),
});
export type LeaseHeartbeatRequest = z.infer<typeof LeaseHeartbeatRequestSchema>;

export const LeaseHeartbeatResponseSchema = z.object({
  status: LeaseStatusSchema,
  expires_at: IsoTimeSchema,
  /** Why the server asks to stop or pause, e.g. `request_canceled`, `lease_expired`. [v1] */
  reason: z.string().optional(),
});
export type LeaseHeartbeatResponse = z.infer<typeof LeaseHeartbeatResponseSchema>;

export const RESULT_STATUSES = ['succeeded', 'failed', 'canceled'] as const;
export const ResultStatusSchema = z.enum(RESULT_STATUSES);

export const RESULT_SUMMARY_MAX = 12_000;

export const UsageSchema = z.object({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative().optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** `POST …/{id}/result` body. [seed + v1 usage, idempotency_key] */
export const ResultRequestSchema = z.object({
  status: ResultStatusSchema,
  summary: z.string().max(RESULT_SUMMARY_MAX),
  log_ref: z.string().max(500).optional(),
  runtime: z.enum(['claude-cli', 'codex-cli']).optional(),
  usage: UsageSchema.optional(),
  /** `<unit id>:<attempt>`; a repeat is answered 409 already_recorded. */
  idempotency_key: z.string().min(1).max(300).optional(),
  /** The seed's id field, the same id as in the path. [seed] */
  turn_execution_id: OpaqueIdSchema.optional(),
  work_order_id: OpaqueIdSchema.optional(),
});
export type ResultRequest = z.infer<typeof ResultRequestSchema>;

export const ResultAcceptedSchema = z.object({ accepted: z.literal(true) });
