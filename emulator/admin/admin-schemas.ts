import { z } from 'zod';
// exactOptional: JSON and query strings never carry `undefined`, so an absent field is absent in the type too (exactOptionalPropertyTypes).
import { OperatorRoleSchema, UnitKindSchema } from '../../shared/protocol';

export const ResetInputSchema = z.strictObject({ seed: z.enum(['demo', 'none']).exactOptional() });
export const TenantInputSchema = z.strictObject({ name: z.string().trim().min(1).max(200), id: z.uuid().exactOptional() });
export const OperatorInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  role: OperatorRoleSchema,
  tenant_id: z.string().min(1).exactOptional(),
  id: z.uuid().exactOptional(),
});
export const TokenInputSchema = z.strictObject({ client_id: z.string().min(1).max(200).exactOptional(), scope: z.string().max(200).exactOptional() });
export const PairingDecisionInputSchema = z.strictObject({
  user_code: z.string().min(1).max(40),
  operator_id: z.string().min(1).exactOptional(),
  tenant_id: z.string().min(1).exactOptional(),
});
export const OAuthDecisionInputSchema = z.strictObject({
  user_code: z.string().min(1).max(40),
  operator_id: z.string().min(1),
  decision: z.enum(['approve', 'deny']).exactOptional(),
});
export const RunnerInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(200).exactOptional(),
  tenant_id: z.string().min(1).exactOptional(),
  platform: z.string().max(40).exactOptional(),
  hostname: z.string().max(255).exactOptional(),
  runner_version: z.string().max(64).exactOptional(),
});
export const ConfirmationModeInputSchema = z.strictObject({ enabled: z.boolean() });
export const ConfirmationDecisionInputSchema = z.strictObject({
  decision: z.enum(['confirm', 'decline']),
  operator_id: z.string().min(1).exactOptional(),
});
export const TrickleInputSchema = z.strictObject({
  enabled: z.boolean(),
  min_ms: z.number().int().min(10).max(3_600_000).exactOptional(),
  max_ms: z.number().int().min(10).max(3_600_000).exactOptional(),
});

const positive = z.number().int().positive();
const nonNegative = z.number().int().nonnegative();
export const ConfigPatchSchema = z.strictObject({
  longPollMaxMs: nonNegative.max(600_000).exactOptional(),
  claimCarriesHeartbeat: z.boolean().exactOptional(),
  nextHeartbeatMs: z.number().int().min(1000).exactOptional(),
  leaseHeartbeatMs: z.number().int().min(50).exactOptional(),
  leaseTtlFactor: z.number().min(1).max(100).exactOptional(),
  defaultTimeoutMs: positive.exactOptional(),
  maxAttempts: positive.max(20).exactOptional(),
  caps: z.strictObject({ tenant: positive.exactOptional(), project: positive.exactOptional(), defaultAccount: positive.exactOptional() }).exactOptional(),
  pairingIntervalSec: nonNegative.max(60).exactOptional(),
  pairingExpiresInSec: positive.max(86_400).exactOptional(),
  oauthIntervalSec: nonNegative.max(60).exactOptional(),
  oauthExpiresInSec: positive.max(86_400).exactOptional(),
  accessTokenTtlMs: positive.exactOptional(),
  refreshTokenTtlMs: positive.exactOptional(),
  mcpTokenGraceMs: nonNegative.exactOptional(),
  confirmationTtlMs: positive.exactOptional(),
  sessionTtlMs: positive.exactOptional(),
  emptyClaim: z.enum(['204', 'empty_object']).exactOptional(),
  honourClaimRuntimes: z.boolean().exactOptional(),
  pairingClaimCredentialsOnly: z.boolean().exactOptional(),
  bodyLimitBytes: positive.max(64 * 1024 * 1024).exactOptional(),
  rateLimit: z.strictObject({ maxFailures: positive.exactOptional(), windowMs: positive.exactOptional() }).exactOptional(),
});

const optionalString = z.string().min(1).max(200).exactOptional();
export const UnitQuerySchema = z.strictObject({
  status: z.enum(['queued', 'claimed', 'running', 'succeeded', 'failed', 'canceled', 'expired']).exactOptional(),
  kind: UnitKindSchema.exactOptional(),
  build_request_id: optionalString,
  runner_id: optionalString,
});
export const ResultQuerySchema = z.strictObject({ unit_id: optionalString, runner_id: optionalString });
export const HeartbeatQuerySchema = z.strictObject({ runner_id: optionalString, limit: z.coerce.number().int().min(1).max(1000).exactOptional() });
export const LeaseQuerySchema = z.strictObject({ unit_id: optionalString });
export const McpQuerySchema = z.strictObject({ unit_id: optionalString, tool: optionalString });
export const EventQuerySchema = z.strictObject({
  since: z.coerce.number().int().nonnegative().exactOptional(),
  type: optionalString,
  limit: z.coerce.number().int().min(1).max(10_000).exactOptional(),
});
