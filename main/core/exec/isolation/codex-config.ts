/**
 * The config.toml of a codex turn's private CODEX_HOME. It is generated, never the
 * operator's: no MCP servers of theirs, no `notify` hook, no profiles, no project trust,
 * and a shell environment policy that hands the commands codex runs only the core
 * variables (no tokens, not even the unit's MCP token).
 *
 * What does carry over from the operator's config.toml is the model choice, because
 * without it a turn would run a different model, or none when the operator uses their
 * own provider: the top-level keys in MODEL_KEYS and the `[model_providers.<name>]`
 * tables, copied as written. The copy is line-based (no TOML library here): a table
 * lasts until the next `[` header, and a top-level value that opens a multi-line array
 * or string is copied until it closes.
 */
export const MODEL_KEYS = [
  'model',
  'model_provider',
  'model_reasoning_effort',
  'model_reasoning_summary',
  'model_verbosity',
  'model_context_window',
  'model_supports_reasoning_summaries',
  'preferred_auth_method',
  'forced_login_method',
  'openai_base_url',
  'chatgpt_base_url',
] as const;

const HEADER = /^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$/;
const ARRAY_HEADER = /^\s*\[\[/;
const ASSIGN = /^\s*([A-Za-z0-9_-]+)\s*=/;

function opensMultiline(value: string): 'array' | 'basic' | 'literal' | null {
  const v = value.trim();
  if (v.startsWith('"""') && !(v.length > 3 && v.slice(3).includes('"""'))) return 'basic';
  if (v.startsWith("'''") && !(v.length > 3 && v.slice(3).includes("'''"))) return 'literal';
  if (v.startsWith('[')) {
    let level = 0;
    for (const c of v.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '')) {
      if (c === '[') level++;
      else if (c === ']') level--;
    }
    return level > 0 ? 'array' : null;
  }
  return null;
}

/** The operator's model selection, as TOML lines (possibly empty). */
export function extractModelSelection(operatorToml: string): string {
  const lines = operatorToml.split(/\r?\n/);
  const out: string[] = [];
  let section: 'top' | 'provider' | 'other' = 'top';
  let copying: 'array' | 'basic' | 'literal' | null = null;
  let copyThis = false;
  for (const line of lines) {
    if (copying) {
      if (copyThis) out.push(line);
      if (copying === 'basic' && line.includes('"""')) copying = null;
      else if (copying === 'literal' && line.includes("'''")) copying = null;
      else if (copying === 'array' && /\]\s*(#.*)?$/.test(line.trim())) copying = null;
      continue;
    }
    const header = HEADER.exec(line);
    if (header || ARRAY_HEADER.test(line)) {
      const name = header?.[1] ?? '';
      section = !ARRAY_HEADER.test(line) && /^model_providers\.[A-Za-z0-9_-]+(\.[A-Za-z0-9_."-]+)?$/.test(name) ? 'provider' : 'other';
      if (section === 'provider') out.push('', line);
      continue;
    }
    if (section === 'other') continue;
    const assign = ASSIGN.exec(line);
    if (section === 'top') {
      if (!assign || !(MODEL_KEYS as readonly string[]).includes(assign[1] as string)) {
        copyThis = false;
        if (assign) copying = opensMultiline(line.slice(line.indexOf('=') + 1));
        continue;
      }
      copyThis = true;
      out.push(line);
      copying = opensMultiline(line.slice(line.indexOf('=') + 1));
      continue;
    }
    // Inside a provider table: every line as written.
    copyThis = true;
    out.push(line);
    if (assign) copying = opensMultiline(line.slice(line.indexOf('=') + 1));
  }
  return out.join('\n').trim();
}

export function codexTurnConfig(operatorToml: string | null): string {
  const model = operatorToml ? extractModelSelection(operatorToml) : '';
  // Top-level keys must come before any table.
  const [topLines, tableLines] = splitTop(model);
  return [
    '# Written by Runner Tray for one unattended turn; removed when the turn ends.',
    ...topLines,
    'approval_policy = "never"',
    'sandbox_mode = "workspace-write"',
    'check_for_update_on_startup = false',
    'cli_auth_credentials_store = "file"',
    '',
    '[history]',
    'persistence = "none"',
    '',
    '[shell_environment_policy]',
    'inherit = "core"',
    'ignore_default_excludes = false',
    'exclude = ["*TOKEN*", "*SECRET*", "*KEY*", "*PASSWORD*", "ROST_*", "RUNNER_*"]',
    ...tableLines,
    '',
  ].join('\n');
}

function splitTop(toml: string): [string[], string[]] {
  const lines = toml.length > 0 ? toml.split('\n') : [];
  const firstTable = lines.findIndex((l) => HEADER.test(l) || ARRAY_HEADER.test(l));
  if (firstTable < 0) return [lines, []];
  return [lines.slice(0, firstTable).filter((l) => l.trim() !== ''), ['', ...lines.slice(firstTable)]];
}

/**
 * The variables the kept model providers read their keys from (`env_key`, and the values of
 * `env_http_headers`): a turn needs them to reach its model, so they join the allowlist.
 */
export function providerEnvNames(operatorToml: string | null): string[] {
  if (!operatorToml) return [];
  const kept = extractModelSelection(operatorToml);
  const names = new Set<string>();
  for (const m of kept.matchAll(/^\s*env_key\s*=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/gm)) names.add(m[1] as string);
  for (const m of kept.matchAll(/^\s*env_http_headers\s*=\s*\{([^}]*)\}/gm)) {
    for (const v of (m[1] as string).matchAll(/=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/g)) names.add(v[1] as string);
  }
  return [...names];
}
