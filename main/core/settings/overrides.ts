// Env and flag overrides for the headless host, with the names of `rost runner serve`
// so an existing unit file or container keeps working. Overrides sit on top of the
// stored settings and are never persisted.
//
// Precedence, as in the seed CLI: a flag beats its env variable; `RUNNER_X` beats
// `ROST_RUNNER_X` whenever it is defined (even empty: the seed uses `??`, so an empty
// `RUNNER_MODEL_ACCOUNT_ALIAS` means the `default` account). Single variables that are
// set but blank count as unset here, where the seed would fail on them (`RUNNER_HEARTBEAT_MS=`).
// Numbers are read with `Number()` and must be safe integers, as in the seed.
// Messages name the flag or variable that supplied the bad value, in the seed's wording:
// `--heartbeat-ms must be an integer >= 1000.`, `RUNNER_HEARTBEAT_MS must be …`.
import { ProfileIdSchema } from '../../../shared/profiles';
import { type SettingKey, type SettingsPatch, parseSetting } from '../../../shared/settings';
import { type Flags, type Raw, readFlags } from './override-flags';
import { type FleetOptions, resolveFleetOptions } from './fleet-overrides';

export { OVERRIDES_USAGE } from './override-flags';

export interface ResolvedOverrides {
  ok: true;
  overrides: SettingsPatch;
  /** For each overridden setting, the flag or variable it came from (for the UI: "set by RUNNER_NAME"). */
  sources: Partial<Record<SettingKey, string>>;
  once: boolean;
  /** `--dry-run` [v1]: say, per lane the plane offers, whether this machine can run its work; claim nothing; exit. */
  dryRun: boolean;
  /**
   * `--state-file <file>` (the seed's name), `--import-state <file>` or `RUNNER_STATE_FILE`:
   * a `rost runner serve` state file to take over.
   */
  importStateFile?: string;
  /** `--user-code <code>`: pair with a code an operator got elsewhere (the web page, another CLI). */
  userCode?: string;
  port?: number;
  /** `--health-port` / `RUNNER_TRAY_HEALTH_PORT`: a listener for `/healthz` only (containers' probes). */
  healthPort?: number;
  /** `--health-host` / `RUNNER_TRAY_HEALTH_HOST` (default 0.0.0.0). */
  healthHost?: string;
  open: boolean;
  /** `--data-dir` or `RUNNER_TRAY_DATA_DIR`. */
  dataDir?: string;
  allowFileSecretStore: boolean;
  /** `--token-file <path>`: the headless host writes its address and script token there (0600), not to the terminal. */
  tokenFile?: string;
  /** `--profile <id>` / `RUNNER_TRAY_PROFILE`: the profile the setting flags (and pairing, `--once`) are about; created if missing. */
  profile?: string;
  /** `--profiles <file>` / `RUNNER_TRAY_PROFILES_FILE`: several profiles and their settings (main/headless/profiles-file.ts). */
  profilesFile?: string;
  /** `/metrics` and the webhook (fleet-overrides.ts). */
  fleet: FleetOptions;
}
export interface OverridesError {
  code: 'invalid_option';
  message: string;
  field: SettingKey | null;
}
export type OverridesResult = ResolvedOverrides | { ok: false; error: OverridesError };

const NUMERIC = new Set<SettingKey>([
  'heartbeatMs',
  'interactiveClaimMs',
  'maxSessions',
  'quitDrainMs',
  'usageReservePercent',
  'spendDailyTokenCap',
  'spendWeeklyTokenCap',
  'spendDailyCostCapUsd',
  'spendWeeklyCostCapUsd',
  'diskMinFreeGb',
]);

/** Env names per setting (every flag's setting is here too); the first one defined wins (`??` semantics). */
const SETTING_ENV: ReadonlyArray<readonly [SettingKey, readonly string[]]> = [
  ['runnerName', ['RUNNER_NAME']],
  ['heartbeatMs', ['RUNNER_HEARTBEAT_MS']],
  ['interactiveClaimMs', ['RUNNER_INTERACTIVE_CLAIM_MS']],
  ['runtime', ['RUNNER_RUNTIME']],
  ['controlPlaneUrl', ['RUNNER_CONTROL_PLANE_URL']],
  ['maxSessions', ['RUNNER_MAX_SESSIONS']],
  ['modelAccountAlias', ['RUNNER_MODEL_ACCOUNT_ALIAS', 'ROST_RUNNER_MODEL_ACCOUNT_ALIAS']],
  ['modelAccountState', ['RUNNER_MODEL_ACCOUNT_STATE', 'ROST_RUNNER_MODEL_ACCOUNT_STATE']],
  // Runner Tray's own (the seed has no drain): how long a quit waits for running turns.
  ['quitDrainMs', ['RUNNER_TRAY_QUIT_DRAIN_MS']],
  ['codexDriver', ['RUNNER_CODEX_DRIVER']],
  ['usageReservePercent', ['RUNNER_USAGE_RESERVE']],
  // Spending caps of every model account (0: none).
  ['spendDailyTokenCap', ['RUNNER_SPEND_DAILY_TOKENS']],
  ['spendWeeklyTokenCap', ['RUNNER_SPEND_WEEKLY_TOKENS']],
  ['spendDailyCostCapUsd', ['RUNNER_SPEND_DAILY_USD']],
  ['spendWeeklyCostCapUsd', ['RUNNER_SPEND_WEEKLY_USD']],
  // The free-disk floor under the data folder (0: none); a container's small volume sets it lower.
  ['diskMinFreeGb', ['RUNNER_TRAY_DISK_MIN_FREE_GB']],
];

/**
 * `RUNNER_EXECUTE`: as the seed's, work runs only when it is exactly `1`; any other value
 * is heartbeat only. A seed-style command line (a state file: `--state-file` or
 * `RUNNER_STATE_FILE`) without `--execute` is heartbeat only too, as the seed's unit file
 * would be; otherwise running work is on by default (the desktop app's own).
 */
const SEED_HEARTBEAT_ONLY = '--state-file without --execute';

function fail(message: string, field: SettingKey | null = null): { ok: false; error: OverridesError } {
  return { ok: false, error: { code: 'invalid_option', message, field } };
}

function fromEnv(env: Record<string, string | undefined>, names: readonly string[]): Raw | undefined {
  if (names.length > 1) {
    const name = names.find((n) => env[n] !== undefined);
    return name === undefined ? undefined : { value: env[name] as string, source: name };
  }
  const name = names[0] as string;
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : { value, source: name };
}

export function resolveOverrides(env: Record<string, string | undefined>, argv: readonly string[]): OverridesResult {
  const read = readFlags(argv);
  if (!read.ok) return fail(read.error.message, read.error.field);
  const { flags } = read;
  const settings = settingOverrides(env, flags);
  if (!settings.ok) return settings;
  const { overrides, sources } = settings;
  const conflict = runWorkOverride(env, flags, overrides, sources);
  if (conflict !== undefined) return conflict;
  const fleet = resolveFleetOptions({ booleans: flags.booleans, values: flags.values, env });
  if (!fleet.ok) return fail(fleet.message);
  const result: ResolvedOverrides = {
    ok: true,
    overrides: overrides as SettingsPatch,
    sources,
    once: flags.booleans.has('--once'),
    dryRun: flags.booleans.has('--dry-run'),
    open: flags.booleans.has('--open'),
    // The env form is for containers and service units, where the command line is fixed.
    allowFileSecretStore: flags.booleans.has('--allow-file-secret-store') || /^(1|true|yes)$/i.test(env.RUNNER_TRAY_ALLOW_FILE_SECRET_STORE?.trim() ?? ''),
    fleet: fleet.options,
  };
  return addPathOptions(env, flags.values, result) ?? addListenOptions(env, flags.values, result) ?? result;
}

/** Each setting from its flag, else its env variable, parsed in the seed's terms. */
function settingOverrides(
  env: Record<string, string | undefined>,
  flags: Flags,
): { ok: true; overrides: Record<string, unknown>; sources: Partial<Record<SettingKey, string>> } | { ok: false; error: OverridesError } {
  const overrides: Record<string, unknown> = {};
  const sources: Partial<Record<SettingKey, string>> = {};
  for (const [key, names] of SETTING_ENV) {
    const raw = flags.settings.get(key) ?? fromEnv(env, names);
    if (raw === undefined) continue;
    const input = NUMERIC.has(key) ? Number(raw.value) : raw.value;
    const parsed = parseSetting(key, input, raw.source);
    if (!parsed.ok) return fail(parsed.error.message, key);
    overrides[key] = parsed.value;
    sources[key] = raw.source;
  }
  return { ok: true, overrides, sources };
}

/** `runWork` from `--execute`/`--no-execute`, `RUNNER_EXECUTE` or a seed-style state file (see SEED_HEARTBEAT_ONLY). */
function runWorkOverride(
  env: Record<string, string | undefined>,
  { booleans, values }: Flags,
  overrides: Record<string, unknown>,
  sources: Partial<Record<SettingKey, string>>,
): { ok: false; error: OverridesError } | undefined {
  if (booleans.has('--execute') && booleans.has('--no-execute')) return fail('--execute and --no-execute cannot be used together.', 'runWork');
  if (booleans.has('--execute') || booleans.has('--no-execute')) {
    overrides.runWork = booleans.has('--execute');
    sources.runWork = booleans.has('--execute') ? '--execute' : '--no-execute';
    return undefined;
  }
  const raw = fromEnv(env, ['RUNNER_EXECUTE']);
  if (raw !== undefined) {
    overrides.runWork = raw.value.trim() === '1';
    sources.runWork = `RUNNER_EXECUTE=${raw.value.trim()}`;
  } else if (values.has('--state-file') || values.has('--import-state')) {
    overrides.runWork = false;
    sources.runWork = SEED_HEARTBEAT_ONLY;
  } else if (fromEnv(env, ['RUNNER_STATE_FILE']) !== undefined) {
    overrides.runWork = false;
    sources.runWork = 'RUNNER_STATE_FILE without RUNNER_EXECUTE=1';
  }
  return undefined;
}

/** The state file, pairing code, data dir, token file and profiles, onto result. */
function addPathOptions(
  env: Record<string, string | undefined>,
  values: Map<string, string>,
  result: ResolvedOverrides,
): { ok: false; error: OverridesError } | undefined {
  const stateFlag = values.has('--state-file') ? '--state-file' : '--import-state';
  const stateFile = values.get('--state-file') ?? values.get('--import-state') ?? fromEnv(env, ['RUNNER_STATE_FILE'])?.value;
  if (stateFile !== undefined) {
    if (stateFile.trim() === '') return fail(`${stateFlag} needs a file path.`);
    result.importStateFile = stateFile;
  }
  const userCode = values.get('--user-code');
  if (userCode !== undefined) {
    if (userCode.trim() === '') return fail('--user-code needs the code an operator was given.');
    result.userCode = userCode.trim();
  }
  const dataDir = values.get('--data-dir') ?? fromEnv(env, ['RUNNER_TRAY_DATA_DIR'])?.value;
  if (dataDir !== undefined) {
    if (dataDir.trim() === '') return fail('--data-dir needs a directory path.');
    result.dataDir = dataDir;
  }
  const tokenFile = values.get('--token-file');
  if (tokenFile !== undefined) {
    if (tokenFile.trim() === '') return fail('--token-file needs a file path.');
    result.tokenFile = tokenFile;
  }
  const profile = values.get('--profile') ?? fromEnv(env, ['RUNNER_TRAY_PROFILE'])?.value;
  if (profile !== undefined) {
    const label = values.has('--profile') ? '--profile' : 'RUNNER_TRAY_PROFILE';
    if (!ProfileIdSchema.safeParse(profile.trim()).success) return fail(`${label} must be a profile id: 1–40 lowercase letters, digits and dashes.`);
    result.profile = profile.trim();
  }
  const profilesFile = values.get('--profiles') ?? fromEnv(env, ['RUNNER_TRAY_PROFILES_FILE'])?.value;
  if (profilesFile !== undefined) {
    if (profilesFile.trim() === '') return fail('--profiles needs a file path.');
    result.profilesFile = profilesFile;
  }
  return undefined;
}

/** The UI port and the health listener, onto result. */
function addListenOptions(
  env: Record<string, string | undefined>,
  values: Map<string, string>,
  result: ResolvedOverrides,
): { ok: false; error: OverridesError } | undefined {
  const port = values.get('--port');
  if (port !== undefined) {
    const n = Number(port);
    if (port.trim() === '' || !Number.isSafeInteger(n) || n < 0 || n > 65535) return fail('--port must be an integer from 0 to 65535.');
    result.port = n;
  }
  const healthPort = values.get('--health-port') ?? fromEnv(env, ['RUNNER_TRAY_HEALTH_PORT'])?.value;
  if (healthPort !== undefined) {
    const n = Number(healthPort);
    const label = values.has('--health-port') ? '--health-port' : 'RUNNER_TRAY_HEALTH_PORT';
    if (healthPort.trim() === '' || !Number.isSafeInteger(n) || n < 0 || n > 65535) return fail(`${label} must be an integer from 0 to 65535.`);
    result.healthPort = n;
  }
  const healthHost = values.get('--health-host') ?? fromEnv(env, ['RUNNER_TRAY_HEALTH_HOST'])?.value;
  if (healthHost !== undefined) {
    if (!/^[A-Za-z0-9.:[\]-]{1,255}$/.test(healthHost.trim())) return fail('--health-host must be an address to listen on, e.g. 0.0.0.0 or 127.0.0.1.');
    result.healthHost = healthHost.trim();
  }
  return undefined;
}
