import { z } from 'zod';
import { command } from './command';
import { ProfileIdSchema, ProfileSummarySchema } from './profiles';

/*
 * A Sechroom profile's settings, kept in its own file and merged into `commands`
 * in contract.ts. The instance settings are checked in the core with the seed's messages
 * (main/core/planes/sechroom/); here only their shape.
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
    /** `--max-push-mib`: delivery pushes no file larger than this. */
    maxPushMiB: z.number().int().optional(),
    /** The one-time value of settings:widening-challenge: needed to turn on `danger-full-access`. */
    confirmWidening: z.string().max(200).optional(),
  })
  .strict();
export type SechroomConfigureInput = z.infer<typeof SechroomConfigureInputSchema>;

export const SechroomFleetImportInputSchema = z
  .object({
    /** The seed's fleet config (`sechroom executor fleet --config <file>`): one profile per instance. */
    file: z.string().min(1).max(4096),
    ...WorkLayerShape,
    /** As in sechroom:configure: needed when an instance turns on `danger-full-access`. */
    confirmWidening: z.string().max(200).optional(),
  })
  .strict();
export type SechroomFleetImportInput = z.infer<typeof SechroomFleetImportInputSchema>;

/** Where a Sechroom profile's Work Layer credential comes from (the secret itself never leaves the core). */
export const SechroomCredentialSchema = z.object({
  /** `env`: the host's SECHROOM_TOKEN (see README, SECHROOM_TOKEN_PROFILE); `sign-in`: the profile's own device sign-in. */
  source: z.enum(['env', 'sign-in']),
  /** Why the token does or does not apply here, when it is set. */
  note: z.string().nullable(),
});
export type SechroomCredential = z.infer<typeof SechroomCredentialSchema>;

/** A Sechroom profile's saved settings as the Settings view shows them: no secret is in them. */
export const SechroomSettingsViewSchema = z.object({
  profile: ProfileIdSchema,
  /** null: not set yet. */
  config: z
    .object({
      ...WorkLayerShape,
      account: z.string(),
      instance: z.record(z.string(), z.unknown()),
      deliver: z.boolean(),
      raisePr: z.boolean(),
    })
    .nullable(),
  /** The stored settings could not be read (their reason). */
  problem: z.string().nullable(),
  credential: SechroomCredentialSchema,
  signedIn: z.boolean(),
});
export type SechroomSettingsView = z.infer<typeof SechroomSettingsViewSchema>;

export const sechroomProfileCommands = {
  /** A Sechroom profile's saved settings and where its credential comes from. */
  'sechroom:get': command(z.object({ profile: ProfileIdSchema }).strict(), SechroomSettingsViewSchema),
  /** Sets a Sechroom profile's Work Layer, instance and delivery; its executor starts again with them. */
  'sechroom:configure': command(SechroomConfigureInputSchema, ProfileSummarySchema),
  /** Imports a fleet config: a Sechroom profile per instance (named by its instance key), created or updated. */
  'sechroom:fleet-import': command(SechroomFleetImportInputSchema, z.array(ProfileSummarySchema)),
} as const satisfies Record<string, { input: z.ZodType; output: z.ZodType }>;
