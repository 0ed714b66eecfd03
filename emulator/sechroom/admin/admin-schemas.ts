import { z } from 'zod';
import { BRIEF_STATUSES, DECOMPOSITION_STATUSES, TASK_STATUSES } from '../../../shared/protocol/sechroom';

const text = (max: number) => z.string().max(max);
const optionalId = z.string().min(1).max(200).exactOptional();
const Slug = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'letters, digits, dot, dash or underscore');
const ComponentSchema = z.strictObject({ title: text(500).nullable().exactOptional(), body: text(256 * 1024) });

export const MintTokenInputSchema = z.strictObject({
  operator_id: optionalId,
  /** Access-token lifetime of this one token (default: the Work Layer setting). */
  ttl_ms: z
    .number()
    .int()
    .positive()
    .max(365 * 24 * 3600_000)
    .exactOptional(),
  client_id: z.string().min(1).max(200).exactOptional(),
});

export const BundleInputSchema = z.strictObject({
  slug: Slug,
  version: Slug,
  components: z.array(ComponentSchema).max(100),
  tenant_id: optionalId,
});

export const CreateTaskInputSchema = z.strictObject({
  title: z.string().trim().min(1).max(500),
  objective: text(64 * 1024).exactOptional(),
  acceptance: text(64 * 1024).exactOptional(),
  boundaries: text(64 * 1024).exactOptional(),
  closeout: text(64 * 1024).exactOptional(),
  lane: z.string().min(1).max(200).nullable().exactOptional(),
  capability_keys: z.array(z.string().min(1).max(200)).max(50).exactOptional(),
  tags: z.array(z.string().min(1).max(200)).max(50).exactOptional(),
  decomposition_id: optionalId,
  /** A pointer to a published bundle (`{slug, version}` or `"slug@version"`), or one to publish now with its components. */
  context_pack: z
    .union([
      z.strictObject({ slug: Slug, version: Slug, components: z.array(ComponentSchema).max(100).exactOptional() }),
      z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}@[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'expected slug@version')
        .transform((v) => ({ slug: v.slice(0, v.indexOf('@')), version: v.slice(v.indexOf('@') + 1), components: undefined })),
    ])
    .nullable()
    .exactOptional(),
  tenant_id: optionalId,
});
export type CreateTaskAdminInput = z.infer<typeof CreateTaskInputSchema>;

export const CreateBriefInputSchema = z.strictObject({
  title: z.string().trim().min(1).max(500),
  status: z.enum(BRIEF_STATUSES).exactOptional(),
  tenant_id: optionalId,
});

export const CreateDecompositionInputSchema = z.strictObject({
  brief_id: optionalId,
  title: z.string().trim().min(1).max(500).exactOptional(),
  status: z.enum(DECOMPOSITION_STATUSES).exactOptional(),
  tenant_id: optionalId,
});

export const LeaseCancelInputSchema = z.strictObject({ reason: z.string().min(1).max(500).exactOptional() });

export const LeaseQuerySchema = z.strictObject({
  status: z.enum(['active', 'completed', 'expired', 'canceled']).exactOptional(),
  instance_id: optionalId,
  memory_id: optionalId,
});
export const OfferQuerySchema = z.strictObject({ instance_id: optionalId });
export const TaskQuerySchema = z.strictObject({ status: z.enum(TASK_STATUSES).exactOptional(), decomposition_id: optionalId, lane: optionalId });
export const CompletionQuerySchema = z.strictObject({ memory_id: optionalId });
export const TelemetryQuerySchema = z.strictObject({ decomposition_id: optionalId });
export const TrickleInputSchema = z.strictObject({
  enabled: z.boolean(),
  min_ms: z.number().int().min(10).max(3_600_000).exactOptional(),
  max_ms: z.number().int().min(10).max(3_600_000).exactOptional(),
});
