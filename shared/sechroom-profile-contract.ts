import { z } from 'zod';
import { command } from './command';
import { ProfileIdSchema, ProfileSummarySchema } from './profiles';

/*
 * A Sechroom profile's settings (issue 18), kept in its own file and merged into `commands`
 * in contract.ts. The instance settings are checked in the core with the seed's messages
 * (main/core/connectors/sechroom/instance-settings.ts); here only their shape.
 */

const WorkLayerShape = {
  /** The Work Layer base URL, e.g. the emulator's `/sechroom`. */
  baseUrl: z.string().max(2000),
  tenant: z.string().max(200),
  /** The seed's `--account`: whose sign-in (default `default`). */
  account: z.string().max(100).optional(),
};

export const SechroomConfigureInputSchema = z
  .object({
    profile: ProfileIdSchema,
    ...WorkLayerShape,
    /** `executor install`/`executor run` settings: instanceKey, laneId, connectorId, capabilityKeys, ttlSeconds, … root, model, sandbox. */
    instance: z.record(z.string(), z.unknown()),
    /** The seed's `--no-deliver` when false. */
    deliver: z.boolean().optional(),
    /** The seed's `--no-pr` when false. */
    raisePr: z.boolean().optional(),
  })
  .strict();
export type SechroomConfigureInput = z.infer<typeof SechroomConfigureInputSchema>;

export const SechroomFleetImportInputSchema = z
  .object({
    /** The seed's fleet config (`sechroom executor fleet --config <file>`): one profile per instance. */
    file: z.string().min(1).max(4096),
    ...WorkLayerShape,
  })
  .strict();
export type SechroomFleetImportInput = z.infer<typeof SechroomFleetImportInputSchema>;

export const sechroomProfileCommands = {
  /** Sets a Sechroom profile's Work Layer, instance and delivery; its executor starts again with them. */
  'sechroom:configure': command(SechroomConfigureInputSchema, ProfileSummarySchema),
  /** Imports a fleet config: a Sechroom profile per instance (named by its instance key), created or updated. */
  'sechroom:fleet-import': command(SechroomFleetImportInputSchema, z.array(ProfileSummarySchema)),
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
