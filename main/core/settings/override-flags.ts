// The headless host's flags, declared once: `node:util`'s parseArgs reads argv with this
// table, and readFlags checks its tokens in order so every message keeps the seed's wording
// (`--name needs a value.`, `Unknown option: --x. Usage: …`).
//
// parseArgs runs non-strict, with tokens: its strict mode rejects a value that starts with
// one dash (`--name -x`, which the seed takes as the value) and accepts a lone `--`, which
// the seed rejects; the checks below give the seed's answer for both.
import { parseArgs } from 'node:util';
import { redactText } from '../../../shared/redact';
import type { SettingKey } from '../../../shared/settings';

type Flag = { type: 'string'; setting?: SettingKey } | { type: 'boolean' };

const FLAGS: ReadonlyMap<string, Flag> = new Map<string, Flag>([
  ['name', { type: 'string', setting: 'runnerName' }],
  ['heartbeat-ms', { type: 'string', setting: 'heartbeatMs' }],
  ['interactive-claim-ms', { type: 'string', setting: 'interactiveClaimMs' }],
  ['runtime', { type: 'string', setting: 'runtime' }],
  ['control-plane', { type: 'string', setting: 'controlPlaneUrl' }],
  ['max-sessions', { type: 'string', setting: 'maxSessions' }],
  ['import-state', { type: 'string' }],
  ['state-file', { type: 'string' }],
  ['user-code', { type: 'string' }],
  ['port', { type: 'string' }],
  ['data-dir', { type: 'string' }],
  ['token-file', { type: 'string' }],
  ['health-port', { type: 'string' }],
  ['health-host', { type: 'string' }],
  ['metrics-port', { type: 'string' }],
  ['metrics-host', { type: 'string' }],
  ['webhook-url', { type: 'string' }],
  ['profile', { type: 'string' }],
  ['profiles', { type: 'string' }],
  ['once', { type: 'boolean' }],
  ['dry-run', { type: 'boolean' }],
  ['open', { type: 'boolean' }],
  ['metrics', { type: 'boolean' }],
  ['allow-file-secret-store', { type: 'boolean' }],
  ['execute', { type: 'boolean' }],
  ['no-execute', { type: 'boolean' }],
]);
const PARSE_OPTIONS = Object.fromEntries([...FLAGS].map(([name, flag]) => [name, { type: flag.type }]));

export const OVERRIDES_USAGE =
  'Usage: runner-tray-headless [--name <text>] [--state-file <path>] [--heartbeat-ms <n>] [--interactive-claim-ms <n>] [--user-code <code>] ' +
  '[--runtime auto|claude|codex] [--once] [--dry-run] [--execute|--no-execute] [--control-plane <url>] [--max-sessions <1-8>] [--port <n>] [--open] ' +
  '[--token-file <path>] [--data-dir <dir>] [--allow-file-secret-store] [--health-port <n>] [--health-host <addr>] [--profile <id>] [--profiles <file>]\n' +
  '       [--metrics] [--metrics-host <addr>] [--metrics-port <n>] [--webhook-url <https-url>]\n' +
  '       runner-tray-headless service install|start|stop|restart|status|logs|uninstall [--name <name>]\n' +
  '       runner-tray-headless diagnostics [--out <file.zip>] [host flags]';

export type Raw = { value: string; source: string };
export interface Flags {
  /** A setting flag's value and the flag that gave it (the last one given wins). */
  settings: Map<SettingKey, Raw>;
  /** Other flags' values, by flag (`--port`). */
  values: Map<string, string>;
  /** The switches given (`--once`). */
  booleans: Set<string>;
}
export type FlagError = { message: string; field: SettingKey | null };

/** The argument an unknown option came in, as the seed names it: up to a `=` for `--x=y`. */
function unknown(arg: string): FlagError {
  const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
  if (!arg.startsWith('-')) return { message: `Unexpected argument: ${redactText(arg).slice(0, 80)}. ${OVERRIDES_USAGE}`, field: null };
  return { message: `Unknown option: ${eq > 0 ? arg.slice(0, eq) : arg}. ${OVERRIDES_USAGE}`, field: null };
}

/** argv into flags, failing on the first argument that is wrong. */
export function readFlags(argv: readonly string[]): { ok: true; flags: Flags } | { ok: false; error: FlagError } {
  const { tokens } = parseArgs({ args: [...argv], options: PARSE_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const flags: Flags = { settings: new Map(), values: new Map(), booleans: new Set() };
  for (const token of tokens) {
    if (token.kind === 'option-terminator') return { ok: false, error: unknown('--') };
    if (token.kind === 'positional') return { ok: false, error: unknown(token.value) };
    const flag = FLAGS.get(token.name);
    // A short option (`-x`, or one of `-xyz`) is never known: name the argument it came in.
    if (flag === undefined || !token.rawName.startsWith('--')) return { ok: false, error: unknown(argv[token.index] ?? token.rawName) };
    const name = token.rawName;
    if (flag.type === 'boolean') {
      if (token.inlineValue === true) return { ok: false, error: { message: `${name} takes no value.`, field: null } };
      flags.booleans.add(name);
      continue;
    }
    const value = token.value;
    if (value === undefined || (token.inlineValue !== true && value.startsWith('--')))
      return { ok: false, error: { message: `${name} needs a value.`, field: flag.setting ?? null } };
    if (flag.setting !== undefined) flags.settings.set(flag.setting, { value, source: name });
    else flags.values.set(name, value);
  }
  return { ok: true, flags };
}
