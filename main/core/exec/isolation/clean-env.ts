/**
 * The environment a runtime starts with: an allowlist, never "everything but the secrets".
 *
 * The runner's own process environment holds what a turn must not see: the app's and the
 * runner's variables (RUNNER_*, RUNNER_TRAY_*, ELECTRON_*), the operator's other tokens
 * (GITHUB_TOKEN, AWS_*, …), the session D-Bus address through which the Secret Service
 * hands out the runner secret, SSH and GPG agent sockets. A child gets only:
 *
 * - what any program needs to run: PATH, HOME, USER/LOGNAME, SHELL, locale (LANG,
 *   LANGUAGE, LC_*), TZ, TMPDIR, TERM, COLORTERM, NO_COLOR, and on Windows the system
 *   variables without which nothing starts (SYSTEMROOT, COMSPEC, PATHEXT, …);
 * - how the network is reached: the proxy variables and the CA bundle variables;
 * - the runtime's own configuration: ANTHROPIC_* and CLAUDE_* for claude, OPENAI_* and
 *   CODEX_* for codex (both for both: a unit may run either), and the few unprefixed
 *   variables claude documents (DISABLE_TELEMETRY, API_TIMEOUT_MS, MCP_TIMEOUT, …);
 * - names the operator added in the settings (`runtimeEnvAllow`, e.g. `AWS_PROFILE` for
 *   Bedrock, `MY_PROXY_*`), except the runner's own, which can never be added.
 *
 * Whatever the source, a variable whose value is one of the known secrets (the runner
 * secret, operator tokens, the unit's MCP token) is dropped.
 */
import { NEVER_PASSED_ENV, canAddEnvName } from '../../../../shared/settings';

export const BASE_ALLOW: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TZ',
  'TMPDIR',
  'TERM',
  'COLORTERM',
  'NO_COLOR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  // Windows: without these, processes and DNS fail to start.
  'SYSTEMROOT',
  'SystemRoot',
  'WINDIR',
  'COMSPEC',
  'ComSpec',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'ProgramData',
  'PROGRAMFILES',
  'ProgramFiles',
  'SYSTEMDRIVE',
  'SystemDrive',
  'Path',
];

export const RUNTIME_ALLOW: readonly string[] = [
  'ANTHROPIC_*',
  'CLAUDE_*',
  'OPENAI_*',
  'CODEX_*',
  // claude's documented unprefixed switches.
  'DISABLE_TELEMETRY',
  'DISABLE_AUTOUPDATER',
  'DISABLE_ERROR_REPORTING',
  'DISABLE_BUG_COMMAND',
  'DISABLE_COST_WARNINGS',
  'DISABLE_NON_ESSENTIAL_MODEL_CALLS',
  'DISABLE_PROMPT_CACHING',
  'API_TIMEOUT_MS',
  'MCP_TIMEOUT',
  'MCP_TOOL_TIMEOUT',
  'MAX_THINKING_TOKENS',
  'MAX_MCP_OUTPUT_TOKENS',
  'BASH_DEFAULT_TIMEOUT_MS',
  'BASH_MAX_TIMEOUT_MS',
];

/** Never passed, whatever the settings say: the runner's and the app's own, and ways back into the session. */
export const NEVER_PASS: readonly string[] = NEVER_PASSED_ENV;

function matches(name: string, pattern: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
}

export function isNeverPassed(name: string): boolean {
  return NEVER_PASS.some((p) => matches(name, p));
}

/** Whether an operator may add `pattern` to the allowlist (it must not reach any never-passed name). */
export const canAllow = canAddEnvName;

export interface CleanEnvInput {
  /** Where ambient variables come from (the runner's process.env). */
  source: Readonly<Record<string, string | undefined>>;
  /** Extra names or `PREFIX_*` patterns from the settings. */
  extraAllow?: readonly string[];
  knownSecrets: readonly string[];
  /**
   * Layers set by the runner itself, applied in order over the filtered source: the host's
   * explicit runtime environment, then what the invocation needs (CLAUDE_CONFIG_DIR, …).
   * They pass as given except never-passed names and secret values.
   */
  layers?: readonly Readonly<Record<string, string>>[];
  /** Layers trusted to carry the unit's own token (the invocation's), exempt from the secret check. */
  ownLayers?: readonly Readonly<Record<string, string>>[];
}

export function cleanEnv(input: CleanEnvInput): Record<string, string> {
  const secrets = new Set(input.knownSecrets.filter((s) => s.length > 0));
  const allow = [...BASE_ALLOW, ...RUNTIME_ALLOW, ...(input.extraAllow ?? []).filter(canAllow)];
  const env: Record<string, string> = {};
  const admit = (name: string, value: string) => !isNeverPassed(name) && !secrets.has(value);
  for (const [name, value] of Object.entries(input.source)) {
    if (value === undefined || !allow.some((p) => matches(name, p))) continue;
    if (admit(name, value)) env[name] = value;
  }
  for (const layer of input.layers ?? []) {
    for (const [name, value] of Object.entries(layer)) {
      if (admit(name, value)) env[name] = value;
      else delete env[name];
    }
  }
  for (const layer of input.ownLayers ?? []) Object.assign(env, layer);
  return env;
}

/** Splits the `runtimeEnvAllow` setting (`A, B_*`) into patterns. */
export function parseAllowList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
