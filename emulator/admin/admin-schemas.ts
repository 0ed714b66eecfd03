import { z } from 'zod';
import { OperatorRoleSchema, UnitKindSchema } from '../../shared/protocol';

export const ResetInputSchema = z.strictObject({ seed: z.enum(['demo', 'none']).optional() });
export const TenantInputSchema = z.strictObject({ name: z.string().trim().min(1).max(200), id: z.uuid().optional() });
export const OperatorInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  role: OperatorRoleSchema,
  tenant_id: z.string().min(1).optional(),
  id: z.uuid().optional(),
});
export const TokenInputSchema = z.strictObject({ client_id: z.string().min(1).max(200).optional(), scope: z.string().max(200).optional() });
export const PairingDecisionInputSchema = z.strictObject({
  user_code: z.string().min(1).max(40),
  operator_id: z.string().min(1).optional(),
  tenant_id: z.string().min(1).optional(),
});
export const OAuthDecisionInputSchema = z.strictObject({
  user_code: z.string().min(1).max(40),
  operator_id: z.string().min(1),
  decision: z.enum(['approve', 'deny']).optional(),
});
export const RunnerInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
  tenant_id: z.string().min(1).optional(),
  platform: z.string().max(40).optional(),
  hostname: z.string().max(255).optional(),
  runner_version: z.string().max(64).optional(),
});
export const ConfirmationModeInputSchema = z.strictObject({ enabled: z.boolean() });
export const ConfirmationDecisionInputSchema = z.strictObject({
  decision: z.enum(['confirm', 'decline']),
  operator_id: z.string().min(1).optional(),
});
export const TrickleInputSchema = z.strictObject({
  enabled: z.boolean(),
  min_ms: z.number().int().min(10).max(3_600_000).optional(),
  max_ms: z.number().int().min(10).max(3_600_000).optional(),
});

const positive = z.number().int().positive();
const nonNegative = z.number().int().nonnegative();
export const ConfigPatchSchema = z.strictObject({
  longPollMaxMs: nonNegative.max(600_000).optional(),
  nextHeartbeatMs: z.number().int().min(1000).optional(),
  leaseHeartbeatMs: z.number().int().min(50).optional(),
  leaseTtlFactor: z.number().min(1).max(100).optional(),
  defaultTimeoutMs: positive.optional(),
  maxAttempts: positive.max(20).optional(),
  caps: z.strictObject({ tenant: positive.optional(), project: positive.optional(), defaultAccount: positive.optional() }).optional(),
  pairingIntervalSec: nonNegative.max(60).optional(),
  pairingExpiresInSec: positive.max(86_400).optional(),
  oauthIntervalSec: nonNegative.max(60).optional(),
  oauthExpiresInSec: positive.max(86_400).optional(),
  accessTokenTtlMs: positive.optional(),
  refreshTokenTtlMs: positive.optional(),
  mcpTokenGraceMs: nonNegative.optional(),
  confirmationTtlMs: positive.optional(),
  sessionTtlMs: positive.optional(),
  emptyClaim: z.enum(['204', 'empty_object']).optional(),
  honourClaimRuntimes: z.boolean().optional(),
  pairingClaimCredentialsOnly: z.boolean().optional(),
  bodyLimitBytes: positive.max(64 * 1024 * 1024).optional(),
  rateLimit: z.strictObject({ maxFailures: positive.optional(), windowMs: positive.optional() }).optional(),
});

const optionalString = z.string().min(1).max(200).optional();
export const UnitQuerySchema = z.strictObject({
  status: z.enum(['queued', 'claimed', 'running', 'succeeded', 'failed', 'canceled', 'expired']).optional(),
  kind: UnitKindSchema.optional(),
  build_request_id: optionalString,
  runner_id: optionalString,
});
export const ResultQuerySchema = z.strictObject({ unit_id: optionalString, runner_id: optionalString });
export const HeartbeatQuerySchema = z.strictObject({ runner_id: optionalString, limit: z.coerce.number().int().min(1).max(1000).optional() });
export const LeaseQuerySchema = z.strictObject({ unit_id: optionalString });
export const McpQuerySchema = z.strictObject({ unit_id: optionalString, tool: optionalString });
export const EventQuerySchema = z.strictObject({
  since: z.coerce.number().int().nonnegative().optional(),
  type: optionalString,
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
});
