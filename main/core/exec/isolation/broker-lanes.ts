import { brokerUnavailable, type CredentialBroker, type LaneSpec } from './credential-broker';

/**
 * Which of a runtime's credentials the broker stands in for, and what the turn gets instead
 * (checked against claude 2.1.197 and codex-cli 0.171.0 with loopback model stubs):
 *
 * - claude: `ANTHROPIC_API_KEY` (sent as `x-api-key`) and `ANTHROPIC_AUTH_TOKEN` (sent as
 *   `Authorization: Bearer`) become the turn's token; `ANTHROPIC_BASE_URL` the broker's lane,
 *   which forwards to the base URL the operator set (default the Anthropic API).
 * - codex, a `[model_providers.<name>]` with an `env_key`: that variable becomes the token
 *   and the table's `base_url` the lane (forwarding to the base URL as written).
 * - codex, the built-in OpenAI provider with an API key (`CODEX_API_KEY`, which codex
 *   prefers, or the key an API-key sign-in stored in `auth.json`): the key becomes the token
 *   in the variable and in the turn's `auth.json` copy, and `openai_base_url` the lane.
 *   `OPENAI_API_KEY` in the environment (which codex does not send) becomes the token too.
 *
 * Not brokered (the turn keeps a short-lived copy): a claude or ChatGPT sign-in's access
 * token (its refresh token never reaches the turn: sign-in-copy.ts), `env_http_headers`
 * values, and every credential on a host that reaches the network through an HTTPS proxy.
 */
export const ANTHROPIC_DEFAULT_BASE = 'https://api.anthropic.com';
export const OPENAI_DEFAULT_BASE = 'https://api.openai.com/v1';

type Env = Readonly<Record<string, string | undefined>>;

/** The variables a turn gets in place of the credentials, or null when nothing is brokered. */
export async function brokerClaude(broker: CredentialBroker | undefined, turnRoot: string, env: Env): Promise<Record<string, string> | null> {
  const apiKey = env.ANTHROPIC_API_KEY;
  const authToken = env.ANTHROPIC_AUTH_TOKEN;
  if (!broker || (!apiKey && !authToken) || brokerUnavailable(env)) return null;
  const secrets: LaneSpec['secrets'] = {};
  if (apiKey) secrets['x-api-key'] = apiKey;
  if (authToken) secrets.authorization = authToken;
  const grant = await broker.grant(turnRoot, [{ upstream: env.ANTHROPIC_BASE_URL || ANTHROPIC_DEFAULT_BASE, secrets }]);
  return {
    ANTHROPIC_BASE_URL: grant.urls[0] ?? '',
    ...(apiKey ? { ANTHROPIC_API_KEY: grant.token } : {}),
    ...(authToken ? { ANTHROPIC_AUTH_TOKEN: grant.token } : {}),
  };
}

export interface CodexProvider {
  name: string;
  envKey: string | null;
  baseUrl: string | null;
}

const PROVIDER_HEADER = /^\s*\[\s*model_providers\.([A-Za-z0-9_-]+)\s*\]\s*(#.*)?$/;
const ANY_HEADER = /^\s*\[/;
const STRING_VALUE = (key: string) => new RegExp(`^\\s*${key}\\s*=\\s*["']([^"'\\n]*)["']\\s*(#.*)?$`);

/** The `[model_providers.<name>]` tables of a generated config.toml, with their key variable and base URL. */
export function codexProviders(configToml: string): CodexProvider[] {
  const providers: CodexProvider[] = [];
  let current: CodexProvider | null = null;
  for (const line of configToml.split('\n')) {
    const header = PROVIDER_HEADER.exec(line);
    if (header?.[1]) {
      current = { name: header[1], envKey: null, baseUrl: null };
      providers.push(current);
      continue;
    }
    if (ANY_HEADER.test(line)) {
      current = null;
      continue;
    }
    if (!current) continue;
    current.envKey ??= STRING_VALUE('env_key').exec(line)?.[1] ?? null;
    current.baseUrl ??= STRING_VALUE('base_url').exec(line)?.[1] ?? null;
  }
  return providers;
}

/** The top-level `openai_base_url` of a config.toml, or null. */
export function openaiBaseUrl(configToml: string): string | null {
  for (const line of configToml.split('\n')) {
    if (ANY_HEADER.test(line)) return null;
    const value = STRING_VALUE('openai_base_url').exec(line)?.[1];
    if (value) return value;
  }
  return null;
}

/** The config with each named provider's base_url, and the top-level openai_base_url, pointed at its lane. */
export function withLanes(configToml: string, providers: ReadonlyMap<string, string>, openai: string | null): string {
  const out: string[] = [];
  let current: string | null = null;
  let top = true;
  for (const line of configToml.split('\n')) {
    const header = PROVIDER_HEADER.exec(line);
    if (ANY_HEADER.test(line)) {
      if (top && openai) out.push(`openai_base_url = ${JSON.stringify(openai)}`);
      top = false;
      current = header?.[1] ?? null;
      out.push(line);
      continue;
    }
    if (top && openai && STRING_VALUE('openai_base_url').test(line)) continue;
    const lane = current ? providers.get(current) : undefined;
    out.push(lane && STRING_VALUE('base_url').test(line) ? `base_url = ${JSON.stringify(lane)}` : line);
  }
  if (top && openai) out.push(`openai_base_url = ${JSON.stringify(openai)}`);
  return out.join('\n');
}

export interface BrokeredCodex {
  config: string;
  env: Record<string, string>;
  /** What the turn's auth.json copy holds in place of a stored API key (null: leave it). */
  storedKey: string | null;
}

/** The turn's config, variables and stored-key token with the broker standing in for every key it can. */
export async function brokerCodex(
  broker: CredentialBroker | undefined,
  turnRoot: string,
  input: { config: string; env: Env; storedApiKey: string | null },
): Promise<BrokeredCodex | null> {
  const { env } = input;
  if (!broker || brokerUnavailable(env)) return null;
  const providers = codexProviders(input.config).filter(
    (p): p is CodexProvider & { envKey: string; baseUrl: string } => p.envKey !== null && p.baseUrl !== null && Boolean(env[p.envKey]),
  );
  const openaiKey = env.CODEX_API_KEY || input.storedApiKey;
  const specs: LaneSpec[] = providers.map((p) => ({ upstream: p.baseUrl, secrets: { authorization: env[p.envKey] ?? '' } }));
  if (openaiKey) specs.push({ upstream: openaiBaseUrl(input.config) || env.OPENAI_BASE_URL || OPENAI_DEFAULT_BASE, secrets: { authorization: openaiKey } });
  // Nothing to stand in for but a variable codex does not send: it still must not reach the turn.
  if (specs.length === 0 && !env.OPENAI_API_KEY) return null;
  const grant = await broker.grant(turnRoot, specs);
  const lanes = new Map(providers.map((p, i) => [p.name, grant.urls[i] ?? '']));
  const openaiLane = openaiKey ? (grant.urls[providers.length] ?? null) : null;
  const replaced: Record<string, string> = {};
  for (const p of providers) replaced[p.envKey] = grant.token;
  for (const name of ['CODEX_API_KEY', 'OPENAI_API_KEY'] as const) if (env[name]) replaced[name] = grant.token;
  return { config: withLanes(input.config, lanes, openaiLane), env: replaced, storedKey: input.storedApiKey ? grant.token : null };
}
