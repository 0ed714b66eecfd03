import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * Who may use the headless host, in three values that never meet:
 *
 * - the **launch token**, made at start: it opens one browser session when it comes in
 *   the printed address, and it is what a script sends as `Authorization: Bearer` on
 *   the WebSocket (headers stay out of history and logs);
 * - **address tokens**: one-time values for the addresses printed on request (SIGUSR2);
 * - **session values**: what a browser gets, in an HttpOnly, SameSite=Strict cookie whose
 *   name carries the port, in exchange for an address token. The URL is then clean.
 *
 * A token in an address is good once: a copy left in history, a screenshot or a shell
 * log opens nothing. Values are kept as SHA-256 digests, so a lookup compares digests,
 * never the secret itself.
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

export class LaunchAccess {
  readonly launchToken: string;
  private readonly launchDigest: string;
  private readonly addresses = new Set<string>();
  private readonly sessions = new Set<string>();

  constructor(launchToken: string = newSecretValue()) {
    this.launchToken = launchToken;
    this.launchDigest = digest(launchToken);
    this.addresses.add(this.launchDigest);
  }

  /** A new one-time token for a new address. */
  newAddressToken(): string {
    const token = newSecretValue();
    remember(this.addresses, digest(token), MAX_ADDRESSES);
    return token;
  }

  /** Trades a token from an address for a new session value, once; null when spent or wrong. */
  redeem(addressToken: string | null | undefined): string | null {
    if (!addressToken) return null;
    const key = digest(addressToken);
    if (!this.addresses.delete(key)) return null;
    const session = newSecretValue();
    remember(this.sessions, digest(session), MAX_SESSIONS);
    return session;
  }

  isSession(value: string | null | undefined): boolean {
    return Boolean(value) && this.sessions.has(digest(value!));
  }

  isLaunchToken(value: string | null | undefined): boolean {
    return Boolean(value) && digest(value!) === this.launchDigest;
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
