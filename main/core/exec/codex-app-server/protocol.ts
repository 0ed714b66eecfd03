import { z } from 'zod';

/**
 * The slice of `codex app-server`'s JSON-RPC protocol this runner speaks, checked against
 * the bindings codex-cli 0.171.0 generates (`codex app-server generate-ts`) and against the
 * real server running offline (tests/real-cli/codex-app-server.test.ts).
 *
 * Framing: one JSON object per line on stdio, JSON-RPC 2.0 (the server omits "jsonrpc").
 * Client requests: initialize, thread/start, thread/resume, turn/start, turn/interrupt,
 * account/rateLimits/read; then the `initialized` notification after initialize.
 * Server notifications read: turn/started, turn/completed, item/completed,
 * thread/tokenUsage/updated, account/rateLimits/updated, error. Server requests answered:
 * the approval and elicitation requests (denied), item/tool/call (dynamic tools).
 * Everything else is logged at debug level and ignored. Schemas are loose: a newer codex
 * adds fields, and only what is read here is checked.
 */

const RequestIdSchema = z.union([z.string(), z.number()]);
export type RequestId = z.infer<typeof RequestIdSchema>;

/** Any line, classified by its members (result/error ⇒ response; method+id ⇒ request; method ⇒ notification). */
export const IncomingSchema = z.union([
  z.looseObject({
    id: RequestIdSchema,
    result: z.unknown().optional(),
    error: z.looseObject({ code: z.number().optional(), message: z.string().optional() }).optional(),
    method: z.undefined().optional(),
  }),
  z.looseObject({ id: RequestIdSchema, method: z.string().min(1), params: z.unknown().optional() }),
  z.looseObject({ method: z.string().min(1), params: z.unknown().optional(), id: z.undefined().optional() }),
]);

const TokenBreakdownSchema = z.looseObject({
  totalTokens: z.number().nonnegative(),
  inputTokens: z.number().nonnegative(),
  cachedInputTokens: z.number().nonnegative().optional(),
  outputTokens: z.number().nonnegative(),
  reasoningOutputTokens: z.number().nonnegative().optional(),
});

export const TokenUsageUpdatedSchema = z.looseObject({
  threadId: z.string(),
  turnId: z.string(),
  tokenUsage: z.looseObject({
    total: TokenBreakdownSchema,
    last: TokenBreakdownSchema,
    modelContextWindow: z.number().nonnegative().nullable().optional(),
  }),
});

const RateLimitWindowSchema = z.looseObject({
  usedPercent: z.number().min(0).max(100),
  windowDurationMins: z.number().nonnegative().nullable().optional(),
  /** Unix seconds (an absolute instant, never a countdown). */
  resetsAt: z.number().nonnegative().nullable().optional(),
});
export type RateLimitWindowWire = z.infer<typeof RateLimitWindowSchema>;

export const RateLimitSnapshotSchema = z.looseObject({
  limitId: z.string().nullable().optional(),
  primary: RateLimitWindowSchema.nullable().optional(),
  secondary: RateLimitWindowSchema.nullable().optional(),
  rateLimitReachedType: z.string().nullable().optional(),
});
export type RateLimitSnapshotWire = z.infer<typeof RateLimitSnapshotSchema>;

export const RateLimitsUpdatedSchema = z.looseObject({ rateLimits: RateLimitSnapshotSchema });
export const RateLimitsReadResultSchema = z.looseObject({ rateLimits: RateLimitSnapshotSchema });

const TurnErrorSchema = z.looseObject({
  message: z.string(),
  // A string ("usageLimitExceeded") or an object ({ httpConnectionFailed: {...} }).
  codexErrorInfo: z.unknown().optional(),
});

const TurnSchema = z.looseObject({
  id: z.string().min(1),
  status: z.enum(['completed', 'interrupted', 'failed', 'inProgress']).or(z.string()),
  error: TurnErrorSchema.nullable().optional(),
});

export const TurnEventSchema = z.looseObject({ threadId: z.string(), turn: TurnSchema });
export type TurnEvent = z.infer<typeof TurnEventSchema>;

export const ErrorNotificationSchema = z.looseObject({
  error: TurnErrorSchema,
  willRetry: z.boolean().optional(),
  threadId: z.string().optional(),
  turnId: z.string().optional(),
});

export const ItemCompletedSchema = z.looseObject({
  threadId: z.string(),
  turnId: z.string(),
  item: z.looseObject({ type: z.string(), id: z.string().optional(), text: z.string().optional() }),
});

export const ThreadStartResultSchema = z.looseObject({ thread: z.looseObject({ id: z.string().min(1) }), model: z.string().optional() });
export const TurnStartResultSchema = z.looseObject({ turn: z.looseObject({ id: z.string().min(1) }) });

export const DynamicToolCallSchema = z.looseObject({
  threadId: z.string(),
  turnId: z.string(),
  callId: z.string().optional(),
  tool: z.string().min(1),
  arguments: z.unknown().optional(),
});

/** Server requests that ask a human; an unattended runner answers each with a refusal. */
export const APPROVAL_REPLIES: Readonly<Record<string, unknown>> = {
  'item/commandExecution/requestApproval': { decision: 'decline' },
  'item/fileChange/requestApproval': { decision: 'decline' },
  'item/permissions/requestApproval': { permissions: {}, scope: 'turn' },
  'mcpServer/elicitation/request': { action: 'decline', content: null, _meta: null },
  'item/tool/requestUserInput': { answers: {} },
  // The v1 names older servers still send.
  applyPatchApproval: { decision: 'denied' },
  execCommandApproval: { decision: 'denied' },
};

export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The `codexErrorInfo` values that mean the account's plan is used up. */
export function isUsageLimitError(info: unknown): boolean {
  return info === 'usageLimitExceeded' || info === 'rateLimitExceeded' || info === 'sessionBudgetExceeded';
}
