import { z } from 'zod';
import { deviceCodeStateSchemas } from './device-code';
import { IsolationLevelSchema } from './isolation';
import { RunnerStatusSchema } from './status';

/** What the UI may know about pairing: the code and address are meant to be shown. */
export const PairingStateSchema = z.discriminatedUnion('phase', [
  ...deviceCodeStateSchemas,
  z.object({ phase: z.literal('approved'), runnerName: z.string() }),
]);
export type PairingState = z.infer<typeof PairingStateSchema>;

export const RuntimeInfoSchema = z.object({
  installed: z.boolean(),
  version: z.string().optional(),
  path: z.string().optional(),
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
  status: RunnerStatusSchema,
  pairing: PairingStateSchema.nullable(),
  identity: z
    .object({
      runnerId: z.string(),
      tenantId: z.string().nullable(),
      name: z.string(),
      controlPlane: z.string(),
      pairedAt: z.string(),
    })
    .nullable(),
  secretStorage: SecretStorageInfoSchema,
  heartbeat: z.object({
    lastOkAt: z.string().nullable(),
    nextAt: z.string().nullable(),
    consecutiveFailures: z.number().int().min(0),
    longPoll: z.boolean(),
    intervalMs: z.number().int(),
  }),
  runtimes: z.object({ claude: RuntimeInfoSchema, codex: RuntimeInfoSchema }).nullable(),
  modelAccount: z.object({ alias: z.string(), state: z.string() }),
  sessions: z.object({ active: z.number().int().min(0), max: z.number().int().min(1) }),
  paused: z.object({ until: z.string().nullable() }).nullable(),
});
export type RunnerSnapshot = z.infer<typeof RunnerSnapshotSchema>;
