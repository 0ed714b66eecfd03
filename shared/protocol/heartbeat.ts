import { z } from 'zod';
import { IsoTimeSchema, OpaqueIdSchema } from './common';

export const RuntimeCapabilitySchema = z.object({
  installed: z.boolean(),
  version: z.string().max(200).optional(),
  path: z.string().max(4096).optional(),
});

/** Detected local runtimes, filtered by the configured runtime (auto|claude|codex). [seed] */
export const CapabilitiesSchema = z.object({
  claude: RuntimeCapabilitySchema.optional(),
  codex: RuntimeCapabilitySchema.optional(),
});
export type Capabilities = z.infer<typeof CapabilitiesSchema>;

/** Model-account alias: trimmed, and empty means the shared `default` account. [seed] */
export const ModelAccountAliasSchema = z
  .string()
  .max(200)
  .transform((alias) => alias.trim() || 'default');

export const ModelAccountSchema = z.object({
  alias: ModelAccountAliasSchema.default('default'),
  /** Usage-limit state; free text the runner reads from env, `unknown` when not set. [seed] */
  state: z.string().trim().min(1).max(80).default('unknown'),
});

/** Advisory capacity telemetry: scheduling input only, never an authority input. [seed] */
export const TelemetrySchema = z.object({
  os: z
    .object({
      platform: z.string().max(40),
      release: z.string().max(200).optional(),
      arch: z.string().max(40).optional(),
    })
    .optional(),
  runner_version: z.string().max(64).optional(),
  cpu: z
    .object({
      count: z.number().int().nonnegative().max(4096),
      load_percent: z.number().min(0).max(100).optional(),
    })
    .optional(),
  memory: z
    .object({
      total_bytes: z.number().nonnegative(),
      free_bytes: z.number().nonnegative(),
      process_rss_bytes: z.number().nonnegative().optional(),
    })
    .optional(),
  active_sessions: z.number().int().nonnegative().max(1024).optional(),
  max_sessions: z.number().int().positive().max(1024).optional(),
  runtimes: z.array(z.string().max(40)).max(16).optional(),
  /**
   * How each runtime's turns are isolated on this machine: `bubblewrap`, `sandbox-exec`
   * or `environment` (a clean environment only). Advisory. [v1]
   */
  isolation: z.object({ claude: z.string().max(40).optional(), codex: z.string().max(40).optional() }).optional(),
  model_account: ModelAccountSchema.optional(),
});
export type Telemetry = z.infer<typeof TelemetrySchema>;

/** `POST /api/runner/heartbeat` body. [seed] */
export const HeartbeatRequestSchema = z.object({
  name: z.string().trim().min(1).max(200).optional(),
  runner_version: z.string().max(64).optional(),
  paused: z.boolean().optional(),
  capabilities: CapabilitiesSchema.optional(),
  telemetry: TelemetrySchema.optional(),
});
export type HeartbeatRequest = z.input<typeof HeartbeatRequestSchema>;
export type HeartbeatRequestParsed = z.infer<typeof HeartbeatRequestSchema>;

export const HeartbeatResponseSchema = z.object({
  runner_id: OpaqueIdSchema,
  server_time: IsoTimeSchema,
  /** Hint for the next heartbeat delay. [v1] */
  next_heartbeat_ms: z.number().int().min(1000).optional(),
  /**
   * Present when the server supports long-poll claims. [v1] `carries_heartbeat`: a long-poll
   * claim may carry the heartbeat body (`heartbeat`), recorded as a heartbeat and answered
   * in the claim's `heartbeat` field, so an idle runner sends one request per long-poll. [v1]
   * `cancel_notices`: a held claim asking for them (`notices`) is answered early with the
   * cancels of this runner's running units, and a `notices_only` read may be held while busy. [v1]
   */
  claim: z
    .object({
      long_poll_max_ms: z.number().int().nonnegative(),
      carries_heartbeat: z.boolean().optional(),
      cancel_notices: z.boolean().optional(),
    })
    .optional(),
});
export type HeartbeatResponse = z.infer<typeof HeartbeatResponseSchema>;

/** Seed defaults and bounds for the runner cadence. [seed] */
