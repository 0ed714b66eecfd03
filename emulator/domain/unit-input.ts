import { z } from 'zod';

const optionalId = z.string().min(1).max(200).nullable().optional();

/**
 * What the admin API accepts to enqueue a turn execution or work order: any
 * protocol field, plus `extra` which is merged into the claimed unit verbatim
 * (to test a client's tolerance of unknown or odd fields).
 */
export const EnqueueUnitInputSchema = z.strictObject({
  id: z.uuid().optional(),
  tenant_id: z.string().min(1).optional(),
  /** Only this runner may claim it. */
  target_runner_id: z.string().min(1).optional(),
  /** Free text on purpose: a brain the runner lacks must still reach it. */
  brain: z.string().min(1).max(40).optional(),
  prompt: z.string().max(200_000).optional(),
  seat: z
    .object({ id: z.string().min(1).max(200), name: z.string().max(200).optional() })
    .nullable()
    .optional(),
  charter_ref: z
    .object({ seat_id: z.string().min(1).max(200).optional() })
    .nullable()
    .optional(),
  user_id: optionalId,
  session_id: optionalId,
  aicos: z
    .object({ session_id: z.string().min(1).max(200).optional() })
    .nullable()
    .optional(),
  build_request_id: optionalId,
  phase_run_id: optionalId,
  /** Links the unit to a Forge task: a successful result completes it (a resume checkpoint). */
  task_id: optionalId,
  /** Omitted: built from server state when the unit links a known request. null: none. Anything else: sent verbatim. */
  context_packet: z.unknown().optional(),
  timeout_ms: z
    .number()
    .int()
    .positive()
    .max(24 * 3600_000)
    .optional(),
  lease: z.strictObject({ heartbeat_ms: z.number().int().min(50).max(600_000) }).optional(),
  mcp_url: z.string().min(1).max(500).optional(),
  max_attempts: z.number().int().min(1).max(20).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type EnqueueUnitInput = z.input<typeof EnqueueUnitInputSchema>;
