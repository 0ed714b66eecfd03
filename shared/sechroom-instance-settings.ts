import { z } from 'zod';
import { INSTANCE_TTL_MAX_S, INSTANCE_TTL_MIN_S, type ExecutorRegistrationInput } from './protocol/sechroom';
import { SECHROOM_LEASE_TTL_MS } from './protocol/sechroom-lease';
// shared/ is compiled without DOM or Node types; every runtime it runs in has WHATWG URL.
declare const URL: new (url: string) => { readonly protocol: string; readonly username: string; readonly password: string };

/*
 * The instance settings of `sechroom executor install` + `executor run` (seed B1.1, B1.3):
 * one Sechroom profile's executor instance. Pure zod (no Node), so a settings view can use
 * it as is. Messages that the seed has are the seed's, word for word; where the seed does
 * not validate (`--ttl`, `--poll-interval`, the timeouts: B15.11, `NaN` → immediate timers)
 * we do, with messages in the same style.
 */

export const RUNTIME_CODEX_ONLY = 'executor run drives runtime codex only (claude-code stays attached)';
export const HEARTBEAT_TOO_LONG = `--heartbeat-interval must be shorter than the ${SECHROOM_LEASE_TTL_MS / 1000}s lease TTL`;
export const USAGE_RESERVE_RANGE = '--usage-reserve must be a percent in [0, 100)';
export const REFRESH_AFTER_TOO_LONG = 'refresh-after must be shorter than the TTL';
export const TTL_RANGE = `--ttl must be a whole number of seconds in [${INSTANCE_TTL_MIN_S}, ${INSTANCE_TTL_MAX_S}]`;
const seconds = (flag: string, min: number, max: number) => `${flag} must be a whole number of seconds in [${min}, ${max}]`;

/** codex's sandbox modes (`thread/start.sandbox`). The seed passes any string. */
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export const SandboxModeSchema = z.enum(SANDBOX_MODES, { error: `--sandbox must be one of ${SANDBOX_MODES.join(', ')}` });
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The seed's defaults (flag defaults and `executor install`). */
export const INSTANCE_DEFAULTS = {
  relayId: 'sechroom-cli-local',
  ttlSeconds: 600,
  pollIntervalSeconds: 5,
  heartbeatIntervalSeconds: 30,
  turnTimeoutSeconds: 300,
  resumeTurnTimeoutSeconds: 1200,
  drainTimeoutSeconds: 30,
  usageReservePercent: 2,
  sandbox: 'workspace-write',
} as const;

/** A number as a flag or a JSON value gives it: `30`, `"30"`; anything else stays as is and fails. */
function numeric(value: unknown): unknown {
  if (typeof value === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/.test(value)) return Number(value);
  return value;
}

const wholeSeconds = (flag: string, min: number, max: number) =>
  z.preprocess(
    numeric,
    z
      .number({ error: seconds(flag, min, max) })
      .int({ error: seconds(flag, min, max) })
      .min(min, { error: seconds(flag, min, max) })
      .max(max, { error: seconds(flag, min, max) }),
  );

const text = (what: string, max = 200) =>
  z
    .string({ error: `${what} must be text` })
    .trim()
    .min(1, { error: `${what} must not be empty` })
    .max(max, { error: `${what} must be at most ${max} characters` });

export const InstanceSettingsSchema = z
  .object({
    runtime: z
      .string()
      .default('codex')
      .refine((v) => v.trim().toLowerCase() === 'codex', { error: RUNTIME_CODEX_ONLY })
      .transform(() => 'codex' as const),
    /** Registration identity. */
    instanceKey: text('--instance-key'),
    /** Affinity lane and completion `source`; defaults to the instance key. */
    laneId: text('--lane').nullish(),
    /** Approved connector id. */
    connectorId: text('--connector').nullish(),
    capabilityKeys: z.array(text('--capability')).max(200).default([]),
    relayId: text('--relay').default(INSTANCE_DEFAULTS.relayId),
    ttlSeconds: z
      .preprocess(
        numeric,
        z.number({ error: TTL_RANGE }).int({ error: TTL_RANGE }).min(INSTANCE_TTL_MIN_S, { error: TTL_RANGE }).max(INSTANCE_TTL_MAX_S, { error: TTL_RANGE }),
      )
      .default(INSTANCE_DEFAULTS.ttlSeconds),
    /** How often the advertisement is refreshed; defaults to half the TTL. */
    refreshAfterSeconds: wholeSeconds('--refresh-after', 5, INSTANCE_TTL_MAX_S).nullish(),
    pollIntervalSeconds: wholeSeconds('--poll-interval', 1, 3600).default(INSTANCE_DEFAULTS.pollIntervalSeconds),
    heartbeatIntervalSeconds: z
      .preprocess(
        numeric,
        z
          .number({ error: seconds('--heartbeat-interval', 1, 119) })
          .int({ error: seconds('--heartbeat-interval', 1, 119) })
          .min(1, { error: seconds('--heartbeat-interval', 1, 119) }),
      )
      .refine((s) => s * 1000 < SECHROOM_LEASE_TTL_MS, { error: HEARTBEAT_TOO_LONG })
      .default(INSTANCE_DEFAULTS.heartbeatIntervalSeconds),
    turnTimeoutSeconds: wholeSeconds('--turn-timeout', 10, 86_400).default(INSTANCE_DEFAULTS.turnTimeoutSeconds),
    resumeTurnTimeoutSeconds: wholeSeconds('--resume-turn-timeout', 10, 86_400).default(INSTANCE_DEFAULTS.resumeTurnTimeoutSeconds),
    drainTimeoutSeconds: wholeSeconds('--drain-timeout', 0, 3600).default(INSTANCE_DEFAULTS.drainTimeoutSeconds),
    usageReservePercent: z
      .preprocess(
        numeric,
        z.number({ error: USAGE_RESERVE_RANGE }).refine((p) => Number.isFinite(p) && p >= 0 && p < 100, { error: USAGE_RESERVE_RANGE }),
      )
      .default(INSTANCE_DEFAULTS.usageReservePercent),
    /** The checkout the turns run in (codex cwd, git root). */
    root: text('--root', 4096),
    model: text('--model').nullish(),
    sandbox: SandboxModeSchema.default(INSTANCE_DEFAULTS.sandbox),
    codexBin: text('--codex-bin', 4096).nullish(),
  })
  .refine((s) => s.refreshAfterSeconds == null || s.refreshAfterSeconds < s.ttlSeconds, { error: REFRESH_AFTER_TOO_LONG, path: ['refreshAfterSeconds'] });

export type InstanceSettingsInput = z.input<typeof InstanceSettingsSchema>;
export type InstanceSettings = z.output<typeof InstanceSettingsSchema>;

export type SettingsCheck = { ok: true; settings: InstanceSettings } | { ok: false; message: string; field: string };

/** The first problem, in the seed's words where it has them. */
export function checkInstanceSettings(input: unknown): SettingsCheck {
  const parsed = InstanceSettingsSchema.safeParse(input);
  if (parsed.success) return { ok: true, settings: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  const given = issue?.path.reduce<unknown>(
    (at, key) => (at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[key as PropertyKey] : undefined),
    input,
  );
  const message = issue?.code === 'invalid_type' && given === undefined ? `${FLAG_OF[field] ?? field} is required` : (issue?.message ?? 'invalid settings');
  return { ok: false, message, field };
}

/** The setting each seed flag sets (for `executor run`'s flags and the fleet config's keys). */
export const FLAG_OF: Record<string, string> = {
  runtime: '--runtime',
  instanceKey: '--instance-key',
  laneId: '--lane',
  connectorId: '--connector',
  capabilityKeys: '--capability',
  relayId: '--relay',
  ttlSeconds: '--ttl',
  refreshAfterSeconds: '--refresh-after',
  pollIntervalSeconds: '--poll-interval',
  heartbeatIntervalSeconds: '--heartbeat-interval',
  turnTimeoutSeconds: '--turn-timeout',
  resumeTurnTimeoutSeconds: '--resume-turn-timeout',
  drainTimeoutSeconds: '--drain-timeout',
  usageReservePercent: '--usage-reserve',
  root: '--root',
  model: '--model',
  sandbox: '--sandbox',
  codexBin: '--codex-bin',
};

/** The lane the instance claims for and completes as: `laneId ?? instanceKey`. [seed B1.1] */
export function laneOf(settings: Pick<InstanceSettings, 'laneId' | 'instanceKey'>): string {
  return settings.laneId ?? settings.instanceKey;
}

export function refreshAfterMs(settings: Pick<InstanceSettings, 'refreshAfterSeconds' | 'ttlSeconds'>): number {
  return (settings.refreshAfterSeconds ?? Math.floor(settings.ttlSeconds / 2)) * 1000;
}

/**
 * `executorRegistrationInput` [seed B1.3]. `activationMode` is the seed's `Attached` even for
 * a driven run (B15.1); `runtimeKind` is `Codex` (the seed's mapping is absent). [v1]
 */
export function registrationInput(settings: InstanceSettings, deliverySubscriptionId: string | null = null): ExecutorRegistrationInput {
  return {
    relayId: settings.relayId,
    instanceKey: settings.instanceKey,
    laneId: laneOf(settings),
    runtimeKind: 'Codex',
    activationMode: 'Attached',
    deliverySubscriptionId,
    connectorId: settings.connectorId ?? null,
    claimedCapabilityKeys: settings.capabilityKeys,
    toolSetRef: null,
    ttlSeconds: settings.ttlSeconds,
  };
}

/*
 * A Sechroom profile's own settings: the Work Layer it talks to, its executor
 * instance, its git delivery. The core checks `sechroom:configure` with it, and the Settings
 * view checks its form with it before sending anything.
 */

const BaseUrlSchema = z
  .string({ error: '--control-plane must be the Work Layer base URL' })
  .trim()
  .max(2000)
  .refine(
    (value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password;
      } catch {
        return false;
      }
    },
    { error: '--control-plane must be an http(s) address without credentials (the Work Layer base URL, e.g. http://127.0.0.1:7457/sechroom)' },
  )
  .transform((value) => value.replace(/\/+$/, ''));

const TenantSchema = z.string({ error: '--tenant is required' }).trim().min(1, { error: '--tenant is required' }).max(200);
const AccountSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._-]+$/, { error: '--account must be letters, digits, dots, dashes or underscores' });

/** The largest file a delivery pushes unless the profile says otherwise (MiB). */
export const DEFAULT_MAX_PUSH_MIB = 100;

export const SechroomProfileConfigSchema = z.object({
  baseUrl: BaseUrlSchema,
  tenant: TenantSchema,
  /** The seed's `--account`: whose sign-in (the secret store keeps one per base URL and account). */
  account: AccountSchema.default('default'),
  instance: InstanceSettingsSchema,
  /** The seed's `--no-deliver`: false leaves the turn's changes in the root, no branch, no push. */
  deliver: z.boolean().default(true),
  /** The seed's `--no-pr`: false pushes the branch without a pull request. */
  raisePr: z.boolean().default(true),
  /** Delivery pushes no file larger than this (MiB); a bigger one fails the delivery, its changes kept. */
  maxPushMiB: z.number({ error: '--max-push-mib must be a number of MiB' }).int().min(1).max(10_240).default(DEFAULT_MAX_PUSH_MIB),
});
export type SechroomProfileConfig = z.output<typeof SechroomProfileConfigSchema>;

export type ConfigCheck = { ok: true; config: SechroomProfileConfig } | { ok: false; message: string; field: string };

/** The first problem in the seed's words where it has them (the instance settings' own messages). */
export function checkSechroomConfig(input: unknown): ConfigCheck {
  const record = input && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  const instance = checkInstanceSettings(record.instance ?? {});
  if (!instance.ok) return { ok: false, message: instance.message, field: `instance.${instance.field}` };
  const parsed = SechroomProfileConfigSchema.safeParse({ ...record, instance: record.instance ?? {} });
  if (parsed.success) return { ok: true, config: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: issue?.message ?? 'invalid Sechroom settings', field: issue?.path.map(String).join('.') ?? '' };
}
