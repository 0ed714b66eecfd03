import { z } from 'zod';

/**
 * Which host:port pairs a sandboxed turn may reach through the egress proxy: the model
 * API of its runtime (the default hosts and any base URL its environment or generated
 * config names), the unit's MCP server, the control plane's origin and what the operator
 * added in Settings (`turnEgressHosts`). Nothing else; the proxy answers 403.
 */
export interface EgressTarget {
  host: string;
  port: number;
}

export const DEFAULT_MODEL_HOSTS: Readonly<Record<'claude' | 'codex', readonly string[]>> = {
  claude: ['api.anthropic.com', 'console.anthropic.com', 'statsig.anthropic.com'],
  codex: ['api.openai.com', 'chatgpt.com', 'auth.openai.com'],
};

/** The variables whose URL a runtime talks to (claude, codex, and an OpenAI-compatible provider). */
const BASE_URL_VARS = ['ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL', 'CODEX_BASE_URL'] as const;

const HOST_LABEL = /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** One `host[:port]` entry of the setting (default port 443); no scheme, path, user or wildcard. */
export const EgressHostSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9.-]+(:\d{1,5})?$/, 'a host name or IPv4 address, optionally with :port (no scheme, path or wildcard)')
  .refine((value) => {
    const target = parseTarget(value);
    return target !== null;
  }, 'a valid host name or IPv4 address, and a port from 1 to 65535');

function parseTarget(value: string): EgressTarget | null {
  const match = /^([A-Za-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.trim());
  if (!match?.[1]) return null;
  const host = match[1].toLowerCase();
  const port = match[2] === undefined ? 443 : Number(match[2]);
  if (!(IPV4.test(host) || HOST_LABEL.test(host)) || port < 1 || port > 65_535) return null;
  return { host, port };
}

export function parseEgressHost(value: string): EgressTarget | null {
  return EgressHostSchema.safeParse(value).success ? parseTarget(value) : null;
}

/** The origin of an http(s) URL as a target; null for anything else (or a malformed URL). */
export function targetOfUrl(value: string): EgressTarget | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!host) return null;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { host, port };
}

/** `base_url = "…"` lines of a generated codex config.toml (a custom model provider). */
export function configBaseUrls(configToml: string): string[] {
  const urls: string[] = [];
  for (const match of configToml.matchAll(/^\s*(?:base_url|openai_base_url|chatgpt_base_url)\s*=\s*"([^"\n]+)"\s*$/gm)) {
    if (match[1]) urls.push(match[1]);
  }
  return urls;
}

export const keyOf = (target: EgressTarget): string => `${target.host}:${target.port}`;

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export interface AllowlistInput {
  runtime: 'claude' | 'codex';
  env: Readonly<Record<string, string | undefined>>;
  /** URLs the turn must reach: the MCP server, the control plane, a provider's base_url. */
  urls: readonly string[];
  /** The operator's `turnEgressHosts` (already validated; an invalid one is skipped). */
  hosts: readonly string[];
}

export function egressAllowlist(input: AllowlistInput): EgressTarget[] {
  const targets = new Map<string, EgressTarget>();
  const add = (target: EgressTarget | null) => {
    if (!target) return;
    // localhost and 127.0.0.1 are one origin in the sandbox (its /etc/hosts says so).
    const canonical = isLoopbackHost(target.host) && target.host !== '::1' ? { host: '127.0.0.1', port: target.port } : target;
    targets.set(keyOf(canonical), canonical);
  };
  for (const host of DEFAULT_MODEL_HOSTS[input.runtime]) add({ host, port: 443 });
  for (const name of BASE_URL_VARS) {
    const value = input.env[name];
    if (value) add(targetOfUrl(value));
  }
  for (const url of input.urls) add(targetOfUrl(url));
  for (const host of input.hosts) add(parseEgressHost(host));
  return [...targets.values()];
}

/** The loopback ports the in-sandbox bridge serves at their own number (base URLs stay unchanged). */
export function loopbackPorts(targets: readonly EgressTarget[]): number[] {
  return [...new Set(targets.filter((t) => isLoopbackHost(t.host)).map((t) => t.port))].sort((a, b) => a - b);
}
