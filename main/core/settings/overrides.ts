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
import { redactText } from '../../../shared/redact';
import { type SettingKey, type SettingsPatch, parseSetting } from '../../../shared/settings';

export interface ResolvedOverrides {
  ok: true;
  overrides: SettingsPatch;
  /** For each overridden setting, the flag or variable it came from (for the UI: "set by RUNNER_NAME"). */
  sources: Partial<Record<SettingKey, string>>;
  once: boolean;
  /** `--import-state <file>` or `RUNNER_STATE_FILE`: a `rost runner serve` state file to import. */
  importStateFile?: string;
  port?: number;
  open: boolean;
  /** `--data-dir` or `RUNNER_TRAY_DATA_DIR`. */
  dataDir?: string;
  allowFileSecretStore: boolean;
}
export interface OverridesError {
  code: 'invalid_option';
  message: string;
  field: SettingKey | null;
}
export type OverridesResult = ResolvedOverrides | { ok: false; error: OverridesError };

const SETTING_FLAGS: Readonly<Record<string, SettingKey>> = {
  '--name': 'runnerName',
  '--heartbeat-ms': 'heartbeatMs',
  '--interactive-claim-ms': 'interactiveClaimMs',
  '--runtime': 'runtime',
  '--control-plane': 'controlPlaneUrl',
  '--max-sessions': 'maxSessions',
};
const VALUE_FLAGS = new Set(['--import-state', '--port', '--data-dir']);
const BOOLEAN_FLAGS = new Set(['--once', '--open', '--allow-file-secret-store']);
const NUMERIC = new Set<SettingKey>(['heartbeatMs', 'interactiveClaimMs', 'maxSessions', 'usageReservePercent']);

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
  ['codexDriver', ['RUNNER_CODEX_DRIVER']],
  ['usageReservePercent', ['RUNNER_USAGE_RESERVE']],
];

export const OVERRIDES_USAGE =
  'Usage: runner-tray-headless [--name <text>] [--heartbeat-ms <n>] [--interactive-claim-ms <n>] [--runtime auto|claude|codex] ' +
  '[--control-plane <url>] [--max-sessions <1-8>] [--once] [--import-state <file>] [--port <n>] [--open] [--data-dir <dir>] [--allow-file-secret-store]';

type Raw = { value: string; source: string };

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
  const settingFlags = new Map<SettingKey, Raw>();
  const values = new Map<string, string>();
  const booleans = new Set<string>();

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    const eq = token.startsWith('--') ? token.indexOf('=') : -1;
    const name = eq > 0 ? token.slice(0, eq) : token;
    const inline = eq > 0 ? token.slice(eq + 1) : undefined;
    if (BOOLEAN_FLAGS.has(name)) {
      if (inline !== undefined) return fail(`${name} takes no value.`);
      booleans.add(name);
      continue;
    }
    const setting = SETTING_FLAGS[name];
    if (setting === undefined && !VALUE_FLAGS.has(name)) {
      if (!token.startsWith('-')) return fail(`Unexpected argument: ${redactText(token).slice(0, 80)}. ${OVERRIDES_USAGE}`);
      return fail(`Unknown option: ${name}. ${OVERRIDES_USAGE}`);
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) return fail(`${name} needs a value.`, setting ?? null);
      value = next;
      i += 1;
    }
    if (setting !== undefined) settingFlags.set(setting, { value, source: name });
    else values.set(name, value);
  }

  const overrides: Record<string, unknown> = {};
  const sources: Partial<Record<SettingKey, string>> = {};
  for (const [key, names] of SETTING_ENV) {
    const raw = settingFlags.get(key) ?? fromEnv(env, names);
    if (raw === undefined) continue;
    const input = NUMERIC.has(key) ? Number(raw.value) : raw.value;
    const parsed = parseSetting(key, input, raw.source);
    if (!parsed.ok) return fail(parsed.error.message, key);
    overrides[key] = parsed.value;
    sources[key] = raw.source;
  }
  const result: ResolvedOverrides = {
    ok: true,
    overrides: overrides as SettingsPatch,
    sources,
    once: booleans.has('--once'),
    open: booleans.has('--open'),
    allowFileSecretStore: booleans.has('--allow-file-secret-store'),
  };

  const stateFile = values.get('--import-state') ?? fromEnv(env, ['RUNNER_STATE_FILE'])?.value;
  if (stateFile !== undefined) {
    if (stateFile.trim() === '') return fail('--import-state needs a file path.');
    result.importStateFile = stateFile;
  }
  const dataDir = values.get('--data-dir') ?? fromEnv(env, ['RUNNER_TRAY_DATA_DIR'])?.value;
  if (dataDir !== undefined) {
    if (dataDir.trim() === '') return fail('--data-dir needs a directory path.');
    result.dataDir = dataDir;
  }
  const port = values.get('--port');
  if (port !== undefined) {
    const n = Number(port);
    if (port.trim() === '' || !Number.isSafeInteger(n) || n < 0 || n > 65535) return fail('--port must be an integer from 0 to 65535.');
    result.port = n;
  }
  return result;
}
