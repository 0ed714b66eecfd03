import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from '../../base/ports';

/**
 * The host side of a turn's model credentials (an API key or an auth token): the runtime
 * inside the sandbox never holds them. It gets a per-turn token and a base URL on this
 * broker (127.0.0.1, reached through the egress bridge in a network namespace); the broker
 * swaps the token for the real credential in the header it travels in and forwards the
 * request to the base URL the operator configured, streaming the answer back.
 *
 * A token opens only its own lanes (one per upstream), only while its turn folder exists
 * (a turn that ended, or a copy of its token carried off in a summary, opens nothing), and
 * only as the credential header the lane was made for. The broker logs a lane's status,
 * never a path, query, header or body.
 */
export type CredentialHeader = 'x-api-key' | 'authorization';

export interface LaneSpec {
  /** Where the requests really go: the runtime's configured base URL (its path is kept). */
  upstream: string;
  /** The real credential for each header it travels in (authorization: sent as `Bearer <secret>`). */
  secrets: Partial<Record<CredentialHeader, string>>;
}

export interface BrokerGrant {
  /** What the turn holds instead of the credential: worthless once the turn has ended, and off this host. */
  readonly token: string;
  /** Each lane's base URL, in the order of the specs. */
  readonly urls: readonly string[];
}

interface Lane {
  turnRoot: string;
  token: Buffer;
  upstream: URL;
  secrets: Partial<Record<CredentialHeader, string>>;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

const TOKEN_PREFIX = 'rt-broker-';

function randomId(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

function sameToken(presented: string | undefined, token: Buffer): boolean {
  if (presented === undefined) return false;
  const given = Buffer.from(presented);
  return given.length === token.length && timingSafeEqual(given, token);
}

function bearerOf(value: string | string[] | undefined): string | undefined {
  const one = Array.isArray(value) ? value[0] : value;
  const match = /^Bearer\s+(\S+)$/i.exec(one ?? '');
  return match?.[1];
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The variables whose proxy a host-side request would have to honor (Node's http does not). */
const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy'] as const;

/** Why this host cannot broker, or null: behind an HTTPS proxy the runtime must keep talking through it itself. */
export function brokerUnavailable(env: Readonly<Record<string, string | undefined>>): string | null {
  const proxy = PROXY_VARS.find((name) => env[name]);
  return proxy ? `the host reaches the network through a proxy (${proxy}), which the broker does not speak` : null;
}

export class CredentialBroker {
  private server: http.Server | null = null;
  private listening: Promise<number> | null = null;
  private readonly lanes = new Map<string, Lane>();
  private readonly grants = new Map<string, { key: string; grant: BrokerGrant }>();
  private readonly alive: (turnRoot: string) => boolean;

  constructor(private readonly options: { log: Logger; alive?: (turnRoot: string) => boolean }) {
    this.alive = options.alive ?? existsSync;
  }

  /**
   * A turn's grant: one token, and a lane per upstream. Asked again for the same turn folder
   * with the same lanes (an app-server's home made anew before a respawn), it is the same
   * grant, so the launch stays the same; with other lanes it replaces the old one.
   */
  async grant(turnRoot: string, specs: readonly LaneSpec[]): Promise<BrokerGrant> {
    const port = await this.listen();
    const key = createHash('sha256').update(JSON.stringify(specs)).digest('hex');
    const held = this.grants.get(turnRoot);
    if (held?.key === key) return held.grant;
    this.revoke(turnRoot);
    const token = `${TOKEN_PREFIX}${randomId(32)}`;
    const urls = specs.map((spec) => {
      const id = randomId(16);
      this.lanes.set(id, { turnRoot, token: Buffer.from(token), upstream: new URL(spec.upstream), secrets: { ...spec.secrets } });
      return `http://127.0.0.1:${port}/${id}`;
    });
    const grant = { token, urls };
    this.grants.set(turnRoot, { key, grant });
    return grant;
  }

  /** Ends a turn's lanes at once (its token opens nothing more). */
  revoke(turnRoot: string): void {
    this.grants.delete(turnRoot);
    for (const [id, lane] of this.lanes) if (lane.turnRoot === turnRoot) this.lanes.delete(id);
  }

  /** The number of lanes open (for tests and diagnostics). */
  get size(): number {
    return this.lanes.size;
  }

  async close(): Promise<void> {
    this.lanes.clear();
    this.grants.clear();
    const server = this.server;
    this.server = null;
    this.listening = null;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private listen(): Promise<number> {
    this.listening ??= new Promise<number>((resolve, reject) => {
      const server = http.createServer((req, res) => this.handle(req, res));
      server.on('clientError', (_error, socket) => socket.destroy());
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        server.on('error', (error) => this.options.log.warn('credential broker error', { error: error.message }));
        this.server = server;
        const info = server.address();
        resolve(typeof info === 'object' && info ? info.port : 0);
      });
    });
    return this.listening;
  }

  private refuse(res: http.ServerResponse, status: 401 | 404, why: string): void {
    this.options.log.warn('credential broker refused a request', { status, why });
    res.writeHead(status, { 'content-type': 'text/plain', connection: 'close' }).end(`credential broker: ${why}\n`);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    req.on('error', () => req.destroy());
    res.on('error', () => res.destroy());
    const match = /^\/([\w-]{22})(\/[^?]*)?(\?.*)?$/.exec(req.url ?? '');
    const id = match?.[1];
    const lane = id ? this.lanes.get(id) : undefined;
    if (!id || !lane) return this.refuse(res, 404, 'no such lane');
    if (!this.alive(lane.turnRoot)) {
      this.revoke(lane.turnRoot);
      return this.refuse(res, 401, 'the turn has ended');
    }
    const presented = {
      'x-api-key': sameToken(headerOf(req.headers['x-api-key']), lane.token),
      authorization: sameToken(bearerOf(req.headers.authorization), lane.token),
    };
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && name !== 'x-api-key' && name !== 'authorization' && value !== undefined) headers[name] = value;
    }
    let swapped = false;
    if (presented['x-api-key'] && lane.secrets['x-api-key']) {
      headers['x-api-key'] = lane.secrets['x-api-key'];
      swapped = true;
    }
    if (presented.authorization && lane.secrets.authorization) {
      headers.authorization = `Bearer ${lane.secrets.authorization}`;
      swapped = true;
    }
    if (!swapped) return this.refuse(res, 401, "not this turn's token");
    const base = lane.upstream.pathname.replace(/\/+$/, '');
    const client = lane.upstream.protocol === 'https:' ? https : http;
    const upstream = client.request({
      protocol: lane.upstream.protocol,
      hostname: lane.upstream.hostname,
      port: lane.upstream.port || undefined,
      method: req.method,
      path: `${base}${match[2] ?? ''}${match[3] ?? ''}`,
      headers: { ...headers, host: lane.upstream.host },
    });
    upstream.on('response', (answer) => {
      const back: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) back[name] = value;
      res.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    upstream.on('error', (error) => {
      this.options.log.warn('credential broker could not reach the model API', { host: lane.upstream.host, error: error.message });
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
      res.end();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }
}
