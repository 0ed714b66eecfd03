// Runner profiles: one runner identity against one control plane. A host holds several;
// each has its own identity, secret (its own secret-store account), settings, pause and
// state files. Pure TS + zod, shared by the core, the shells and the renderer.
import { z } from 'zod';
import type { SettingKey } from './settings';
import { RunnerStatusSchema, type RunnerStatus } from './status';

/** The profile an existing single-runner data folder becomes, and what commands without `profile` act on. */
export const DEFAULT_PROFILE_ID = 'default';
export const MAX_PROFILES = 16;

const ID_RULE = 'A profile id must be 1–40 characters: lowercase letters, digits and dashes, starting with a letter or digit.';
/** A slug: also a folder name (`profiles/<id>/`) and a log tag. */
export const ProfileIdSchema = z.string({ error: ID_RULE }).regex(/^[a-z0-9][a-z0-9-]{0,39}$/, { error: ID_RULE });

/** The control plane a profile talks to: a Rost runner, or a Sechroom executor instance. */
export const CONNECTOR_KINDS = ['rost', 'sechroom'] as const;
export const ConnectorKindSchema = z.enum(CONNECTOR_KINDS, { error: 'The connector must be rost or sechroom.' });
export type ConnectorKind = z.infer<typeof ConnectorKindSchema>;
/** The kinds this build can run a session for. */
export const SUPPORTED_CONNECTOR_KINDS: readonly ConnectorKind[] = ['rost', 'sechroom'];

export const ProfileNameSchema = z
  .string({ error: 'A profile name must be 1–60 characters.' })
  .trim()
  .min(1, { error: 'A profile name must be 1–60 characters.' })
  .max(60, { error: 'A profile name must be 1–60 characters.' });

/**
 * Settings each profile has its own value of. Every other setting is the host's, shared by
 * all profiles (secret storage, notifications, sandbox, usage alerts, the machine-wide cap).
 */
export const PROFILE_SETTING_KEYS = [
  'controlPlaneUrl',
  'runnerName',
  'runtime',
  'heartbeatMs',
  'interactiveClaimMs',
  'maxSessions',
  'modelAccountAlias',
  'modelAccountState',
  'expectedTenantId',
  'runWork',
  'profileLendSchedule',
] as const satisfies readonly SettingKey[];
export type ProfileSettingKey = (typeof PROFILE_SETTING_KEYS)[number];

export function isProfileSetting(key: SettingKey): key is ProfileSettingKey {
  return (PROFILE_SETTING_KEYS as readonly string[]).includes(key);
}

/** A profile as stored and listed (its settings come with `settings:get { profile }`). */
export const ProfileSchema = z.object({
  id: ProfileIdSchema,
  name: ProfileNameSchema,
  connector: ConnectorKindSchema,
});
export type Profile = z.infer<typeof ProfileSchema>;

/** One row of the profile switcher and the tray menu. */
export const ProfileSummarySchema = ProfileSchema.extend({
  controlPlaneUrl: z.string(),
  status: RunnerStatusSchema,
  /** The paired runner's id, or null while unpaired. */
  runnerId: z.string().nullable(),
  paused: z.boolean(),
  /** Turns this profile runs now. */
  active: z.number().int().min(0),
});
export type ProfileSummary = z.infer<typeof ProfileSummarySchema>;

/** `{ profile }` on a per-profile command: absent means the `default` profile, so single-profile callers keep working. */
export const ProfileRefSchema = z.object({ profile: ProfileIdSchema.default(DEFAULT_PROFILE_ID) }).strict();
/** The same, for commands that otherwise take nothing: `undefined`, `null` and `{}` all mean `default`. */
export const OptionalProfileRefSchema = z.union([z.undefined(), z.null(), ProfileRefSchema]).transform((v) => (v ? v : { profile: DEFAULT_PROFILE_ID }));
/** Adds an optional `profile` (default `default`) to a command's input object. */
export const withProfile = <T extends z.ZodRawShape>(shape: T) => z.object({ ...shape, profile: ProfileIdSchema.default(DEFAULT_PROFILE_ID) }).strict();

export const ProfileAddInputSchema = z
  .object({
    name: ProfileNameSchema,
    /** Derived from the name when absent. */
    id: ProfileIdSchema.optional(),
    connector: ConnectorKindSchema.default('rost'),
    /** The profile's control plane; absent: the default profile's. */
    controlPlaneUrl: z.string().max(2000).optional(),
  })
  .strict();

/** `Research Box` → `research-box`: a profile id from a name (empty when nothing usable is left). */
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/**
 * How much a state needs the operator's attention, for the tray icon of several profiles:
 * error > revoked > working > paused > idle; a profile not paired yet asks for nothing.
 */
export function attentionRank(status: RunnerStatus): number {
  switch (status.state) {
    case 'error':
    case 'offline':
      return 5;
    case 'revoked':
      return 4;
    case 'working':
    case 'draining':
      return 3;
    case 'paused':
      return 2;
    case 'idle':
      return 1;
    case 'unpaired':
    case 'pairing':
      return 0;
  }
}

/** The status that needs the most attention (the first of equals); null for no profiles. */
export function worstStatus(statuses: readonly RunnerStatus[]): RunnerStatus | null {
  let worst: RunnerStatus | null = null;
  for (const status of statuses) if (worst === null || attentionRank(status) > attentionRank(worst)) worst = status;
  return worst;
}
