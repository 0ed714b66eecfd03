// The runner's settings: one zod schema shared by the core (stored file, env and flag
// overrides) and the renderer (inline validation). Every field has exactly one message,
// written `<label> must …`; the core's env/flag parser passes the flag or variable name
// as the label, which reproduces the `rost runner serve` wording (`--heartbeat-ms must
// be an integer >= 1000.`), and the UI passes a human label.
import { z } from 'zod';
import { egressHostEntries, SETTING_LABELS } from './setting-labels';

export { egressHostEntries, SETTING_LABELS };
import { DEFAULT_TRANSCRIPT_MEMORY_KB, MAX_TRANSCRIPT_MEMORY_KB, MIN_TRANSCRIPT_MEMORY_KB } from './transcript';
import { plainHttpProblem } from './transport-security';
import { DEFAULT_DISK_MIN_FREE_GB, isLendingKey, LENDING_KEYS, lendingFieldSchema, MAX_LEND_IDLE_MINUTES } from './lending-settings';
import { isSpendingKey, SPENDING_KEYS, spendingFieldSchema } from './spending-settings';

export { DEFAULT_DISK_MIN_FREE_GB, MAX_LEND_IDLE_MINUTES };

export const RUNTIMES = ['auto', 'claude', 'codex'] as const;
export type Runtime = (typeof RUNTIMES)[number];
export const SECRET_BACKENDS = ['keychain', 'file'] as const;
export type SecretBackendChoice = (typeof SECRET_BACKENDS)[number];
/** How codex turns run: `codex exec` per turn, or a long-lived `codex app-server`; auto = app-server where installed codex has it. */
export const CODEX_DRIVERS = ['auto', 'exec', 'app-server'] as const;
export type CodexDriverChoice = (typeof CODEX_DRIVERS)[number];
export const DEFAULT_USAGE_RESERVE_PERCENT = 2;
export const DEFAULT_USAGE_ALERT_PERCENTS = '20, 5';

export const DEFAULT_CONTROL_PLANE_URL = 'http://127.0.0.1:7457';
export const DEFAULT_MODEL_ACCOUNT_ALIAS = 'default';
export const DEFAULT_MODEL_ACCOUNT_STATE = 'unknown';
export const MIN_HEARTBEAT_MS = 1000;
export const MIN_INTERACTIVE_CLAIM_MS = 250;
export const MAX_SESSIONS_LIMIT = 8;
/** The machine-wide cap on turns at once, over every profile (0: one per CPU core). */
export const MAX_MACHINE_TURNS = 64;
/** Quitting waits at most this long for running turns (a day), then cancels them. */
export const MAX_QUIT_DRAIN_MS = 24 * 3_600_000;
export const DEFAULT_QUIT_DRAIN_MS = 5 * 60_000;

export const TURN_NETWORKS = ['allowlist', 'shared'] as const;
export type TurnNetworkChoice = (typeof TURN_NETWORKS)[number];
export const MAX_EGRESS_HOSTS = 50;
/** `host[:port]`: a DNS name or an IPv4 address; the port 1–65535 (checked by validEgressHost). */
const EGRESS_HOST = /^(?=.{1,253}(:|$))[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/;
function validEgressHost(entry: string): boolean {
  const port = /:(\d+)$/.exec(entry)?.[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65_535);
}

export interface Settings {
  controlPlaneUrl: string;
  runnerName: string;
  runtime: Runtime;
  heartbeatMs: number;
  /** As configured; use `effectiveCadence()` for the value the loop runs with. */
  interactiveClaimMs: number;
  maxSessions: number;
  modelAccountAlias: string;
  /** Free text, 1–80 characters (the seed's context packet bounds `model_account_state` so). */
  modelAccountState: string;
  secretBackend: SecretBackendChoice;
  expectedTenantId?: string | undefined;
  launchAtLogin: boolean;
  notifications: boolean;
  /**
   * "Run work on this machine": claim and run units. Off is the seed's heartbeat-only mode
   * (`RUNNER_EXECUTE=0`, `--no-execute`): the runner heartbeats and claims nothing.
   */
  runWork: boolean;
  /** How long "quit after the running turns" waits before it cancels what still runs. */
  quitDrainMs: number;
  /** Extra variable names (or `PREFIX_*`) a runtime may see, beyond the built-in allowlist. */
  runtimeEnvAllow: string;
  /** Unattended turns use the operator's own claude/codex settings, MCP servers and hooks. Off by default. */
  useOwnAgentConfig: boolean;
  codexDriver: CodexDriverChoice;
  /**
   * A sandboxed turn's network: `allowlist` (a network namespace of its own, out only
   * through the host's egress proxy) or `shared` (the host's network, as before; a widening).
   */
  turnNetwork: TurnNetworkChoice;
  /**
   * Extra `host[:port]` entries (default port 443) a sandboxed turn may reach through the
   * proxy, separated by commas or spaces and normalized `a.example, b.example:8443` (the
   * form of runtimeEnvAllow, so the window edits it as one text field); a widening.
   */
  turnEgressHosts: string;
  /** Claims are deferred when an account's remaining percent is at or below this (the seed's --usage-reserve). */
  usageReservePercent: number;
  /** Percent-left thresholds that notify, normalized `20, 5` (empty: none). */
  usageAlertPercents: string;
  /** Turns at once on this machine over every profile; 0 is one per CPU core. Each profile's maxSessions still holds. */
  machineMaxTurns: number;
  /** How much of each running turn's live transcript memory keeps (kB); the rest is on disk. */
  transcriptMemoryKb: number;
  // Lending terms: when this machine takes new work. None of them stops a running turn
  // unless lendStopsRunningTurns is on.
  /** Weekly hours (local time) in which new work is taken; `mon 09-18, sat 10-12`, empty: any time (see lending-schedule.ts). */
  lendSchedule: string;
  /** One profile's own hours within the machine's (per profile; empty: whenever the machine lends). */
  profileLendSchedule: string;
  /** Take new work only after the operator has been idle this many minutes (0: also while in use). */
  lendIdleMinutes: number;
  /** Take new work while the machine runs on battery. */
  lendOnBattery: boolean;
  /** On battery (when allowed), take new work only above this charge (percent). */
  lendMinBatteryPercent: number;
  /** Turns at once while the operator is using the machine (0: the same as machineMaxTurns, which holds while idle). */
  activeMachineMaxTurns: number;
  /** While the operator is using the machine, take new work only while CPU use is below this percent (100: no ceiling). */
  activeCpuCeilingPercent: number;
  /** Stop taking work while the data or work folders have less free space than this (GB; 0: off). */
  diskMinFreeGb: number;
  /** When a lending term holds claims back, cancel running turns too (off: they finish). */
  lendStopsRunningTurns: boolean;
  /** Look for a newer Runner Tray (the desktop app's publish feed, the headless host's npm registry) at start and daily. */
  updateCheck: boolean;
  // Spending caps of every model account, per local day (from midnight) and week (from
  // Monday 00:00); 0 is no cap. Tokens are input + output as the runtime reports them.
  spendDailyTokenCap: number;
  spendWeeklyTokenCap: number;
  /** Only where the runtime reports cost (claude); an account whose cost is unknown (codex) is not held by it. */
  spendDailyCostCapUsd: number;
  spendWeeklyCostCapUsd: number;
}
export type SettingKey = keyof Settings;
export type SettingsPatch = Partial<Settings>;

export const SETTING_KEYS = [
  'controlPlaneUrl',
  'runnerName',
  'runtime',
  'heartbeatMs',
  'interactiveClaimMs',
  'maxSessions',
  'modelAccountAlias',
  'modelAccountState',
  'secretBackend',
  'expectedTenantId',
  'launchAtLogin',
  'notifications',
  'runWork',
  'quitDrainMs',
  'runtimeEnvAllow',
  'useOwnAgentConfig',
  'codexDriver',
  'turnNetwork',
  'turnEgressHosts',
  'usageReservePercent',
  'usageAlertPercents',
  'machineMaxTurns',
  'transcriptMemoryKb',
  ...LENDING_KEYS,
  'updateCheck',
  ...SPENDING_KEYS,
] as const satisfies readonly SettingKey[];
// Fails to compile when a field of Settings is missing from SETTING_KEYS.
const _everyKeyListed: Record<Exclude<SettingKey, (typeof SETTING_KEYS)[number]>, never> = {};

const RULES: Readonly<Record<SettingKey, string>> = {
  controlPlaneUrl: 'must be an https:// URL (http:// only for 127.0.0.1, ::1 or localhost) without a user name or password.',
  runnerName: 'must be 1–100 characters.',
  runtime: 'must be auto, claude or codex.',
  heartbeatMs: `must be an integer >= ${MIN_HEARTBEAT_MS}.`,
  interactiveClaimMs: `must be an integer >= ${MIN_INTERACTIVE_CLAIM_MS}.`,
  maxSessions: `must be an integer from 1 to ${MAX_SESSIONS_LIMIT}.`,
  modelAccountAlias: 'must be at most 200 characters.',
  modelAccountState: 'must be at most 80 characters.',
  secretBackend: 'must be keychain or file.',
  expectedTenantId: 'must be at most 200 characters without spaces.',
  launchAtLogin: 'must be true or false.',
  notifications: 'must be true or false.',
  runWork: 'must be true or false.',
  quitDrainMs: `must be an integer from 0 to ${MAX_QUIT_DRAIN_MS}.`,
  runtimeEnvAllow: "must be variable names or PREFIX_* patterns separated by commas or spaces, none of the runner's own (RUNNER_*, ROST_*, DBUS_*, …).",
  useOwnAgentConfig: 'must be true or false.',
  codexDriver: 'must be auto, exec or app-server.',
  turnNetwork: 'must be allowlist or shared.',
  turnEgressHosts: `must be at most ${MAX_EGRESS_HOSTS} host names or IPv4 addresses, each optionally with :port (no scheme, path or wildcard).`,
  usageReservePercent: 'must be a number from 0 to 50.',
  usageAlertPercents: 'must be a comma-separated list of numbers from 1 to 99.',
  machineMaxTurns: `must be an integer from 0 (one per CPU core) to ${MAX_MACHINE_TURNS}.`,
  transcriptMemoryKb: `must be an integer from ${MIN_TRANSCRIPT_MEMORY_KB} to ${MAX_TRANSCRIPT_MEMORY_KB}.`,
  lendSchedule: 'must be day and hour ranges such as "mon 09-18, sat 10-12" (days mon–sun, hours 0–24), "never", or empty for any time.',
  profileLendSchedule:
    'must be day and hour ranges such as "mon 09-18, sat 10-12" (days mon–sun, hours 0–24), "never", or empty for whenever the machine lends.',
  lendIdleMinutes: `must be an integer from 0 to ${MAX_LEND_IDLE_MINUTES}.`,
  lendOnBattery: 'must be true or false.',
  lendMinBatteryPercent: 'must be an integer from 0 to 100.',
  activeMachineMaxTurns: `must be an integer from 0 (the same as while idle) to ${MAX_MACHINE_TURNS}.`,
  activeCpuCeilingPercent: 'must be an integer from 10 to 100.',
  diskMinFreeGb: 'must be a number from 0 to 10000.',
  lendStopsRunningTurns: 'must be true or false.',
  updateCheck: 'must be true or false.',
  spendDailyTokenCap: 'must be a whole number of tokens from 0 (no cap) to 1000000000000.',
  spendWeeklyTokenCap: 'must be a whole number of tokens from 0 (no cap) to 1000000000000.',
  spendDailyCostCapUsd: 'must be a number of dollars from 0 (no cap) to 1000000.',
  spendWeeklyCostCapUsd: 'must be a number of dollars from 0 (no cap) to 1000000.',
};

/** The one message for an invalid `key`, naming it by `label` (a UI label, a flag or an env name). */
export function settingMessage(key: SettingKey, label: string = SETTING_LABELS[key]): string {
  return `${label} ${RULES[key]}`;
}

function fieldSchema(key: SettingKey): z.ZodType<unknown> {
  const error = settingMessage(key);
  const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
  switch (key) {
    case 'controlPlaneUrl':
      return z
        .string({ error })
        .trim()
        .pipe(z.url({ protocol: /^https?$/, error }))
        .refine((u) => !/^https?:\/\/[^/?#]*@/i.test(u), { error })
        .refine((u) => plainHttpProblem(u) === null, { error })
        .transform((u) => u.replace(/\/+$/, ''));
    case 'runnerName':
      return z.string({ error }).trim().min(1, { error }).max(100, { error });
    case 'runtime':
      return z.enum(RUNTIMES, { error });
    case 'heartbeatMs':
      return int(MIN_HEARTBEAT_MS);
    case 'interactiveClaimMs':
      return int(MIN_INTERACTIVE_CLAIM_MS);
    case 'maxSessions':
      return int(1, MAX_SESSIONS_LIMIT);
    case 'machineMaxTurns':
      return int(0, MAX_MACHINE_TURNS);
    case 'transcriptMemoryKb':
      return int(MIN_TRANSCRIPT_MEMORY_KB, MAX_TRANSCRIPT_MEMORY_KB);
    case 'modelAccountAlias':
      // As the seed: trimmed, and missing or blank is the shared `default` account.
      return z
        .string({ error })
        .trim()
        .max(200, { error })
        .transform((v) => v || DEFAULT_MODEL_ACCOUNT_ALIAS);
    case 'modelAccountState':
      return z
        .string({ error })
        .trim()
        .max(80, { error })
        .transform((v) => v || DEFAULT_MODEL_ACCOUNT_STATE);
    case 'secretBackend':
      return z.enum(SECRET_BACKENDS, { error });
    case 'expectedTenantId':
      return z
        .union([z.string({ error }).trim().max(200, { error }).regex(/^\S*$/, { error }), z.null()], { error })
        .optional()
        .transform((v) => (v ? v : undefined));
    case 'launchAtLogin':
    case 'notifications':
    case 'runWork':
    case 'useOwnAgentConfig':
      return z.boolean({ error });
    case 'quitDrainMs':
      return int(0, MAX_QUIT_DRAIN_MS);
    case 'codexDriver':
      return z.enum(CODEX_DRIVERS, { error });
    case 'turnNetwork':
      return z.enum(TURN_NETWORKS, { error });
    case 'usageReservePercent':
      return z.number({ error }).min(0, { error }).max(50, { error });
    default:
      if (key === 'updateCheck') return z.boolean({ error });
      if (isSpendingKey(key)) return spendingFieldSchema(key, error);
      return isLendingKey(key) ? lendingFieldSchema(key, error, MAX_MACHINE_TURNS) : listFieldSchema(key, error);
  }
}

type ListKey = 'runtimeEnvAllow' | 'turnEgressHosts' | 'usageAlertPercents';

/** The settings typed as a comma-separated list: parsed, checked item by item, stored normalised. */
function listFieldSchema(key: ListKey, error: string): z.ZodType<unknown> {
  switch (key) {
    case 'runtimeEnvAllow':
      return z
        .string({ error })
        .max(2000, { error })
        .transform((v) => v.split(/[\s,]+/).filter((n) => n.length > 0))
        .refine((names) => names.every(canAddEnvName), { error })
        .transform((names) => names.join(', '));
    case 'turnEgressHosts':
      return z
        .string({ error })
        .max(4000, { error })
        .transform((v) => [...new Set(egressHostEntries(v))])
        .refine((hosts) => hosts.length <= MAX_EGRESS_HOSTS && hosts.every((h) => EGRESS_HOST.test(h) && validEgressHost(h)), { error })
        .transform((hosts) => hosts.join(', '));
    case 'usageAlertPercents':
      return z
        .string({ error })
        .trim()
        .max(100, { error })
        .regex(/^(\s*\d{1,2}(\.\d+)?\s*(,\s*\d{1,2}(\.\d+)?\s*)*)?$/, { error })
        .transform((v) => formatAlertPercents(parseAlertPercents(v)))
        .refine((v) => parseAlertPercents(v).every((n) => n >= 1 && n <= 99), { error });
  }
}

const shape = Object.fromEntries(SETTING_KEYS.map((k) => [k, fieldSchema(k)])) as Record<SettingKey, z.ZodType<unknown>>;

const objectError = {
  error: (issue: z.core.$ZodRawIssue) => (issue.code === 'unrecognized_keys' ? `Unknown setting: ${issue.keys.join(', ')}.` : 'Settings must be an object.'),
};
/** A full, valid settings object (no defaults applied: see `defaultSettings`). */
export const settingsSchema = z.strictObject(shape, objectError) as unknown as z.ZodType<Settings>;
/** Any subset of the settings, each field validated; unknown keys are refused. */
export const settingsPatchSchema = z.strictObject(shape, objectError).partial() as unknown as z.ZodType<SettingsPatch>;

export function defaultSettings(hostname: string): Settings {
  const host = hostname.trim().replace(/\s+/g, '-') || 'runner';
  return {
    controlPlaneUrl: DEFAULT_CONTROL_PLANE_URL,
    runnerName: `headless-${host}`.slice(0, 100), // the seed CLI's default name
    runtime: 'auto',
    heartbeatMs: 30_000,
    interactiveClaimMs: 1000,
    maxSessions: 1,
    modelAccountAlias: DEFAULT_MODEL_ACCOUNT_ALIAS,
    modelAccountState: DEFAULT_MODEL_ACCOUNT_STATE,
    secretBackend: 'keychain',
    expectedTenantId: undefined,
    launchAtLogin: false,
    notifications: true,
    runWork: true,
    quitDrainMs: DEFAULT_QUIT_DRAIN_MS,
    runtimeEnvAllow: '',
    useOwnAgentConfig: false,
    codexDriver: 'auto',
    turnNetwork: 'allowlist',
    turnEgressHosts: '',
    usageReservePercent: DEFAULT_USAGE_RESERVE_PERCENT,
    usageAlertPercents: DEFAULT_USAGE_ALERT_PERCENTS,
    machineMaxTurns: 0,
    transcriptMemoryKb: DEFAULT_TRANSCRIPT_MEMORY_KB,
    lendSchedule: '',
    profileLendSchedule: '',
    lendIdleMinutes: 0,
    lendOnBattery: true,
    lendMinBatteryPercent: 20,
    activeMachineMaxTurns: 0,
    activeCpuCeilingPercent: 100,
    diskMinFreeGb: DEFAULT_DISK_MIN_FREE_GB,
    lendStopsRunningTurns: false,
    updateCheck: true,
    spendDailyTokenCap: 0,
    spendWeeklyTokenCap: 0,
    spendDailyCostCapUsd: 0,
    spendWeeklyCostCapUsd: 0,
  };
}

/**
 * Names the runner's own processes use and no setting can hand to a runtime; the same
 * list the core enforces (main/core/exec/isolation/clean-env.ts `NEVER_PASS`).
 */
export const NEVER_PASSED_ENV = [
  'RUNNER_*',
  'ROST_*',
  'SECHROOM_*',
  'ELECTRON_*',
  'DBUS_*',
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'GNOME_KEYRING_*',
  'XDG_RUNTIME_DIR',
  'KRB5CCNAME',
  'npm_config__authToken',
  'NPM_TOKEN',
] as const;

function envMatches(name: string, pattern: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

/** Whether an operator may add `pattern` (a name or `PREFIX_*`): it must reach no never-passed name. */
export function canAddEnvName(pattern: string): boolean {
  if (!/^[A-Za-z_][A-Za-z0-9_]*\*?$/.test(pattern)) return false;
  const stem = pattern.endsWith('*') ? pattern.slice(0, -1) : pattern;
  if (NEVER_PASSED_ENV.some((p) => envMatches(stem, p))) return false;
  // A prefix that covers a never-passed family (`RUN*`) would let it through.
  return !(pattern.endsWith('*') && NEVER_PASSED_ENV.some((p) => p.startsWith(stem)));
}

/** `20, 5` → [20, 5] (descending, no repeats). */
export function parseAlertPercents(text: string): number[] {
  const values = text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map(Number)
    .filter((n) => Number.isFinite(n));
  return [...new Set(values)].sort((a, b) => b - a);
}

export function formatAlertPercents(values: readonly number[]): string {
  return values.join(', ');
}

export interface SettingsIssue {
  message: string;
  field: SettingKey | null;
}
export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: SettingsIssue };

function firstIssue(error: z.ZodError): SettingsIssue {
  const issue = error.issues[0];
  const head = issue?.path[0];
  const field = typeof head === 'string' && (SETTING_KEYS as readonly string[]).includes(head) ? (head as SettingKey) : null;
  return { message: issue?.message ?? 'Settings are not valid.', field };
}

/** Validates one field (for inline validation); `label` defaults to the UI label. */
export function parseSetting<K extends SettingKey>(key: K, value: unknown, label?: string): ParseResult<Settings[K]> {
  const r = fieldSchema(key).safeParse(value);
  if (r.success) return { ok: true, value: r.data as Settings[K] };
  return { ok: false, error: { message: settingMessage(key, label), field: key } };
}

export function parseSettingsPatch(input: unknown): ParseResult<SettingsPatch> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, error: { message: 'Settings must be an object.', field: null } };
  }
  const r = settingsPatchSchema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: firstIssue(r.error) };
}

export function parseSettings(input: unknown): ParseResult<Settings> {
  const r = settingsSchema.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: firstIssue(r.error) };
}

/** The cadence the runner loop uses: the interactive claim never waits longer than a heartbeat. */
export function effectiveCadence(s: Pick<Settings, 'heartbeatMs' | 'interactiveClaimMs'>): {
  heartbeatMs: number;
  interactiveClaimMs: number;
} {
  return { heartbeatMs: s.heartbeatMs, interactiveClaimMs: Math.min(s.interactiveClaimMs, s.heartbeatMs) };
}
