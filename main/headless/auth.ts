import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { WINDOW_KEY_HEADER, WINDOW_KEY_PROTOCOL_PREFIX } from '../../shared/window-session';

/**
 * Who may use the headless host, in values that never meet:
 *
 * - **address tokens**: one-time values in the addresses the host prints (at start, and
 *   on SIGUSR2). Whatever path one comes in on, it is spent the first time: an address
 *   opens one window, and the same value sent as a Bearer opens nothing and is spent too;
 * - the **script token**: what a script sends as `Authorization: Bearer` on the WebSocket.
 *   It goes only to the 0600 `--token-file`, never into an address or onto the terminal;
 * - **window sessions**: an address is traded for two values at once. The session value
 *   rides in an HttpOnly, SameSite=Strict cookie (it lets the page's files load); the
 *   window key goes to the page alone, which keeps it in localStorage and sends it as a
 *   WebSocket subprotocol. Cookies ignore ports, so a page on another 127.0.0.1 port gets
 *   the cookie too; web storage is kept per origin, port included, so only this host's
 *   page has the key, and the WebSocket wants both.
 *
 * Values are kept as SHA-256 digests, so a lookup compares digests, never the secret itself.
 */
export function newSecretValue(): string {
  return randomBytes(32).toString('base64url');
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Outstanding one-time addresses and live sessions are bounded: the oldest go first. */
const MAX_ADDRESSES = 16;
const MAX_SESSIONS = 256;

export interface WindowSession {
  /** The cookie's value. */
  session: string;
  /** The page's own key (the WebSocket subprotocol `rt-key.<key>`). */
  windowKey: string;
}

export class LaunchAccess {
  /** The token of the first address (printed, or written to the token file). */
  readonly firstAddressToken: string;
  readonly scriptToken: string;
  private readonly scriptDigest: string;
  private readonly addresses = new Set<string>();
  /** Session digest → the digest of its window key. */
  private readonly sessions = new Map<string, string>();

  constructor(scriptToken: string = newSecretValue()) {
    this.scriptToken = scriptToken;
    this.scriptDigest = digest(scriptToken);
    this.firstAddressToken = this.newAddressToken();
  }

  /** A new one-time token for a new address. */
  newAddressToken(): string {
    const token = newSecretValue();
    remember(this.addresses, digest(token), MAX_ADDRESSES);
    return token;
  }

  /** Trades a token from an address for a window session, once; null when spent or wrong. */
  redeem(addressToken: string | null | undefined): WindowSession | null {
    if (!addressToken || !this.addresses.delete(digest(addressToken))) return null;
    const session = newSecretValue();
    const windowKey = newSecretValue();
    this.sessions.set(digest(session), digest(windowKey));
    while (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return { session, windowKey };
  }

  /** The cookie alone: enough for the page's files, not for the WebSocket. */
  isSession(value: string | null | undefined): boolean {
    return Boolean(value) && this.sessions.has(digest(value!));
  }

  /** The cookie and the key the same address gave this window's page. */
  isWindow(session: string | null | undefined, windowKey: string | null | undefined): boolean {
    if (!session || !windowKey) return false;
    const expected = this.sessions.get(digest(session));
    return expected !== undefined && expected === digest(windowKey);
  }

  /** A script's Bearer. An address token sent here is spent (and refused): every path spends it. */
  isScript(bearer: string | null | undefined): boolean {
    if (!bearer) return false;
    const key = digest(bearer);
    if (this.addresses.delete(key)) return false;
    return key === this.scriptDigest;
  }

  /** Spends an address token that came where no token may (the WebSocket's address). */
  spend(token: string | null | undefined): void {
    if (token) this.addresses.delete(digest(token));
  }
}

function remember(set: Set<string>, key: string, max: number): void {
  set.add(key);
  while (set.size > max) set.delete(set.values().next().value!);
}

/** The session cookie's name: cookies ignore ports, so two hosts on one machine keep theirs apart. */
export function sessionCookieName(port: number): string {
  return `rt_session_${port}`;
}

export function sessionCookie(port: number, value: string): string {
  return `${sessionCookieName(port)}=${value}; HttpOnly; SameSite=Strict; Path=/`;
}

export function cookieValue(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}

/** The bearer token of an `Authorization` header, if it has one. */
export function bearerToken(req: IncomingMessage): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match?.[1] ?? null;
}

/** The window key a page sent on a plain request (its close probe), if any. */
export function headerWindowKey(req: IncomingMessage): string | null {
  const value = req.headers[WINDOW_KEY_HEADER];
  return typeof value === 'string' ? value : null;
}

/** The window key a page offered among its WebSocket subprotocols, if any. */
export function offeredWindowKey(req: IncomingMessage): string | null {
  for (const protocol of (req.headers['sec-websocket-protocol'] ?? '').split(',')) {
    const name = protocol.trim();
    if (name.startsWith(WINDOW_KEY_PROTOCOL_PREFIX) && name.length > WINDOW_KEY_PROTOCOL_PREFIX.length) return name.slice(WINDOW_KEY_PROTOCOL_PREFIX.length);
  }
  return null;
}

/**
 * Only our own loopback names are accepted as Host and Origin, which defeats DNS
 * rebinding and cross-site WebSocket hijacking from any page the operator visits.
 */
export function allowedHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
}

export function allowedOrigins(port: number): Set<string> {
  return new Set([...allowedHosts(port)].map((h) => `http://${h}`));
}
