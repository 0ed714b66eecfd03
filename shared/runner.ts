import { z } from 'zod';
import { deviceCodeStateSchemas } from './device-code';
import { IsolationLevelSchema } from './isolation';
import { RunnerStatusSchema } from './status';

/** What the UI may know about pairing: the code and address are meant to be shown. */
export const PairingStateSchema = z.discriminatedUnion('phase', [
  ...deviceCodeStateSchemas,
  z.object({ phase: z.literal('approved'), runnerName: z.string() }),
  /**
   * The control plane could not be reached to start pairing (or to take over a state file):
   * the next attempt is timed with backoff, and `pairing:retry-now` makes it at once.
   */
  z.object({
    phase: z.literal('retrying'),
    what: z.enum(['pairing', 'import']),
    lastError: z.string(),
    nextAttemptAt: z.string(),
    attempts: z.number().int().min(1),
  }),
]);
export type PairingState = z.infer<typeof PairingStateSchema>;

export const RuntimeInfoSchema = z.object({
  installed: z.boolean(),
  version: z.string().optional(),
  path: z.string().optional(),
  /** What the CLI's own auth check said (absent: it could not tell). */
  signedIn: z.boolean().optional(),
  /** Ready to run turns: installed, not signed out, not paused by the circuit breaker (absent from older hosts). */
  ready: z.boolean().optional(),
  /** Why an installed runtime is not ready, for the operator (shown in amber). */
  problem: z.string().optional(),
  /** How this runtime's turns are isolated here (shared/isolation.ts). */
  isolation: IsolationLevelSchema.optional(),
  isolationNote: z.string().optional(),
});

export const SecretStorageInfoSchema = z.object({
  backend: z.enum(['keychain', 'file', 'none']),
  /** Shown as a visible warning (the file store) or as the reason pairing is refused. */
  warning: z.string().nullable(),
  problem: z.string().nullable(),
});
export type SecretStorageInfo = z.infer<typeof SecretStorageInfoSchema>;

/** Everything the window shows about the runner; never the secret. */
export const RunnerSnapshotSchema = z.object({
  /** Whose runner this is, a profile id (absent from older hosts: `default`). */
  profile: z.string().optional(),
  status: RunnerStatusSchema,
  pairing: PairingStateSchema.nullable(),
  identity: z
    .object({
      runnerId: z.string(),
      tenantId: z.string().nullable(),
      /** [v1] The tenant's name where the control plane gives one (shown first, the id beside it). */
      tenantName: z.string().nullable().optional(),
      name: z.string(),
      controlPlane: z.string(),
      pairedAt: z.string(),
    })
    .nullable(),
  secretStorage: SecretStorageInfoSchema,
  heartbeat: z.object({
    lastOkAt: z.string().nullable(),
    /** When the next beat of its own goes out; null while none is timed (not connected, or `onClaim`). */
    nextAt: z.string().nullable(),
    /** [v1] The heartbeat rides on the held long-poll claim (protocol §3): no beat of its own is timed (absent from older hosts). */
    onClaim: z.boolean().optional(),
    consecutiveFailures: z.number().int().min(0),
    longPoll: z.boolean(),
    intervalMs: z.number().int(),
  }),
  runtimes: z.object({ claude: RuntimeInfoSchema, codex: RuntimeInfoSchema }).nullable(),
  modelAccount: z.object({ alias: z.string(), state: z.string() }),
  sessions: z.object({ active: z.number().int().min(0), max: z.number().int().min(1) }),
  /** Finished turns' results the control plane does not have yet (absent from older hosts). */
  results: z.object({ undelivered: z.number().int().min(0) }).optional(),
  paused: z
    .object({
      until: z.string().nullable(),
      /** When and by whom (the operator: "you"), and the note they left; kept across restarts. */
      at: z.string().optional(),
      by: z.literal('you').optional(),
      note: z.string().nullable().optional(),
    })
    .nullable(),
});
export type RunnerSnapshot = z.infer<typeof RunnerSnapshotSchema>;
