// Which URLs the runner talks to in plain HTTP: only loopback ones. Everything that
// leaves the machine (the control plane, a unit's MCP server) carries bearer secrets,
// so it goes over HTTPS. Pure: shared by the settings schema, the core and the UI.

// shared/ is compiled without DOM or Node types; every runtime it runs in has WHATWG URL.
interface WhatwgUrl {
  readonly protocol: string;
  readonly hostname: string;
  readonly origin: string;
  readonly pathname: string;
  readonly username: string;
  readonly password: string;
  toString(): string;
}
declare const URL: new (url: string, base?: string) => WhatwgUrl;
type URL = WhatwgUrl;

/** 127.0.0.0/8, ::1 and `localhost` (also `*.localhost`, which resolvers keep on loopback). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  if (/^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4 !== null && v4.slice(1).every((n) => Number(n) <= 255) && v4[1] === '127';
}

/** Why `url` may not be used (null: fine): not http(s), or http to a host that is not loopback. */
export function plainHttpProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'it is not a valid URL';
  }
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol !== 'http:') return `${parsed.protocol} is not http: or https:`;
  if (isLoopbackHost(parsed.hostname)) return null;
  return `http:// is allowed only for this machine (127.0.0.1, ::1, localhost); ${parsed.hostname} needs https://`;
}

export type McpUrlResult = { ok: true; url: string } | { ok: false; reason: string };

/**
 * The unit's MCP URL on the control plane: relative URLs are resolved under the control
 * plane's path prefix (`https://host/rost` + `/mcp` = `https://host/rost/mcp`, as the
 * seed builds it), and an absolute one must have the control plane's origin and sit
 * under its prefix: the unit's token goes to no other server.
 */
export function unitMcpUrl(controlPlaneUrl: string, unitUrl: string | undefined): McpUrlResult {
  let base: URL;
  try {
    base = new URL(controlPlaneUrl);
  } catch {
    return { ok: false, reason: 'the control plane URL is not valid' };
  }
  const prefix = base.pathname.replace(/\/+$/, '');
  const raw = (unitUrl ?? '').trim() || '/mcp';
  let target: URL;
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('//')) {
    try {
      target = new URL(raw);
    } catch {
      return { ok: false, reason: 'the MCP URL is not valid' };
    }
    if (target.origin !== base.origin) return { ok: false, reason: `the MCP URL ${target.origin} is not on the control plane ${base.origin}` };
    if (prefix && target.pathname !== prefix && !target.pathname.startsWith(`${prefix}/`)) {
      return { ok: false, reason: `the MCP URL is outside the control plane's path ${prefix}` };
    }
  } else {
    const joined = `${prefix}/${raw.replace(/^\/+/, '')}`;
    target = new URL(joined, base.origin);
    if (prefix && !target.pathname.startsWith(`${prefix}/`)) return { ok: false, reason: "the MCP URL leaves the control plane's path" };
  }
  if (target.username || target.password) return { ok: false, reason: 'the MCP URL carries a user name or password' };
  const problem = plainHttpProblem(target.toString());
  if (problem) return { ok: false, reason: problem };
  return { ok: true, url: target.toString() };
}
