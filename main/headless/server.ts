import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { EVENT_CHANNEL, WsClientFrameSchema, type HostEvent, type WsServerFrame } from '../../shared/contract';
import { firstViewRequests } from '../../shared/first-view';
import { ProfileIdSchema } from '../../shared/profiles';
import { TransportErrorCode } from '../../shared/result';
import { RENDERER_CSP } from '../../shared/csp';
import type { Host } from '../core/host';
import type { Caller } from '../core/base/dispatch';
import type { Logger } from '../core/base/ports';
import { isHealthz, serveHealthz } from './health';
import { errorText } from '../../shared/errors';
import {
  allowedHosts,
  allowedOrigins,
  bearerToken,
  cookieValue,
  headerWindowKey,
  LaunchAccess,
  offeredWindowKey,
  sessionCookie,
  sessionCookieName,
} from './auth';
import { HANDOFF_SCRIPT, handoffPage } from './window-handoff';
import { WINDOW_HANDOFF_SCRIPT, WINDOW_PROTOCOL } from '../../shared/window-session';
import { RateLimit } from './rate-limit';

export interface HeadlessServerOptions {
  host: Host;
  staticDir: string;
  log: Logger;
  /** 0 picks a free port. */
  port?: number;
  /** The script token (a WebSocket `Authorization: Bearer`); a random one when not given. */
  scriptToken?: string;
  maxPayloadBytes?: number;
  /** Windows (and scripts) connected at once; one more is answered 503. */
  maxConnections?: number;
  /** Commands per second one connection may send on average (bursts of twice that). */
  commandsPerSecond?: number;
  /** How to get a new address, said on the page a spent address opens. */
  newAddressHint?: string;
}

export interface HeadlessServer {
  readonly port: number;
  readonly origin: string;
  /** The first address to open; its token opens one browser session, once. */
  readonly url: string;
  /** A script's WebSocket `Authorization: Bearer`: for the 0600 token file only, never an address. */
  readonly scriptToken: string;
  /** A new one-time address (for another browser, or after the first was used). */
  newAddress(): string;
  close(): Promise<void>;
}

export const DEFAULT_MAX_CONNECTIONS = 16;
export const DEFAULT_COMMANDS_PER_SECOND = 50;

const SECURITY_HEADERS = {
  'content-security-policy': RENDERER_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // A token may be in the first URL; never let it leave in a Referer.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' };

function refuse(res: ServerResponse, status: 401 | 403 | 404 | 405, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS, 'cache-control': 'no-store', connection: 'close' });
  res.end(message);
}

/** Answers a refused upgrade in plain HTTP, then drops the socket whatever the peer does. */
function refuseUpgrade(socket: Duplex, status: 400 | 401 | 403 | 404 | 503, message: string): void {
  if (!socket.writable) return void socket.destroy();
  const response = `HTTP/1.1 ${status} ${REASONS[status]}\r\nconnection: close\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(message)}\r\n\r\n${message}`;
  socket.end(response, () => socket.destroy());
}

/**
 * Serves the built renderer and a WebSocket bridge over the same core, on 127.0.0.1
 * only, behind one-time addresses, a window session (cookie and window key) and an Origin check. Any peer that
 * can reach the port may be hostile: every socket has an error listener, refused
 * upgrades are answered and dropped, and connections and commands are capped. The script
 * token exists only in the token file: without `--token-file` no script connects.
 */
export async function startHeadlessServer(options: HeadlessServerOptions): Promise<HeadlessServer> {
  const { host, log } = options;
  const access = new LaunchAccess(options.scriptToken);
  const maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
  const commandsPerSecond = options.commandsPerSecond ?? DEFAULT_COMMANDS_PER_SECOND;
  const spentHint = options.newAddressHint ?? 'Ask the host for a new address.';
  // ws (and the TLS and zlib modules it loads) is loaded when the first window connects: a host nobody opens never needs it.
  let wss: WebSocketServer | null = null;
  let loading: Promise<WebSocketServer> | null = null;
  const webSockets = (): Promise<WebSocketServer> =>
    (loading ??= import('ws').then(({ WebSocketServer }) => {
      wss = new WebSocketServer({
        noServer: true,
        // A window offers its key as a second subprotocol; the answer names only ours.
        handleProtocols: (offered) => (offered.has(WINDOW_PROTOCOL) ? WINDOW_PROTOCOL : false),
        maxPayload: options.maxPayloadBytes ?? 1024 * 1024,
        perMessageDeflate: false,
      });
      wss.on('error', (error) => log.warn('headless WebSocket server error', { error: errorText(error) }));
      return wss;
    }));
  const ctx: ServerContext = { host, log, access, staticDir: options.staticDir, maxConnections, commandsPerSecond, spentHint, webSockets, port: 0, origin: '' };

  const server = http.createServer((req, res) => {
    void handleHttp(ctx, req, res).catch((error: unknown) => {
      log.error('headless request failed', { error: errorText(error) });
      if (!res.headersSent) res.writeHead(500, SECURITY_HEADERS);
      res.end();
    });
  });
  // Malformed HTTP, or a peer that resets mid-request: answer 400 if still possible, drop it.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    log.debug('headless: bad client request', { error: error.code ?? errorText(error) });
    if (error.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    refuseUpgrade(socket, 400, 'Bad request.');
  });
  server.on('error', (error) => log.error('headless server error', { error: errorText(error) }));

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => handleUpgrade(ctx, req, socket, head));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  ctx.port = port;
  ctx.origin = origin;
  log.info('headless host listening', { origin, channel: EVENT_CHANNEL });

  return {
    port,
    origin,
    url: `${origin}/?token=${access.firstAddressToken}`,
    scriptToken: access.scriptToken,
    newAddress: () => `${origin}/?token=${access.newAddressToken()}`,
    async close() {
      for (const client of wss?.clients ?? []) client.terminate();
      wss?.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/** What the request handlers share: the host, the access rules, the limits, and the address once listening. */
interface ServerContext {
  host: Host;
  log: Logger;
  access: LaunchAccess;
  staticDir: string;
  maxConnections: number;
  commandsPerSecond: number;
  spentHint: string;
  webSockets: () => Promise<WebSocketServer>;
  port: number;
  origin: string;
}

async function handleHttp(ctx: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!allowedHosts(ctx.port).has(req.headers.host ?? '')) return refuse(res, 403, 'Forbidden ctx.host.');
  // Probes: no token, status only (see health.ts).
  if (isHealthz(req)) return serveHealthz(req, res, () => ctx.host.status());
  if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Method not allowed.');
  const url = new URL(req.url ?? '/', ctx.origin);
  // The handoff script holds no secret: it moves the key from its page into this origin's storage.
  if (url.pathname === WINDOW_HANDOFF_SCRIPT) {
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store', ...SECURITY_HEADERS });
    return void res.end(req.method === 'HEAD' ? undefined : HANDOFF_SCRIPT);
  }
  const cookie = cookieValue(req, sessionCookieName(ctx.port));
  // A window's close probe sends its key: a page whose key this host does not know is told so.
  const probeKey = headerWindowKey(req);
  const hasSession = probeKey === null ? ctx.access.isSession(cookie) : ctx.access.isWindow(cookie, probeKey);
  if (url.searchParams.has('token')) {
    // An address with a token: trade it for a session (cookie) and a window key (this
    // answer's page only), and let that page send the browser on to the same place
    // without the token, so it is in no history entry, bookmark or Referer.
    const opened = ctx.access.redeem(url.searchParams.get('token'));
    if (opened) {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'set-cookie': sessionCookie(ctx.port, opened.session),
        ...SECURITY_HEADERS,
      });
      return void res.end(req.method === 'HEAD' ? undefined : handoffPage(opened.windowKey));
    }
    if (!hasSession) {
      return refuse(res, 401, `Runner Tray: this address was already used (or is wrong); an address opens one window, once. ${ctx.spentHint}`);
    }
    url.searchParams.delete('token');
    res.writeHead(303, { location: url.pathname + url.search, 'cache-control': 'no-store', ...SECURITY_HEADERS });
    return void res.end();
  }
  if (!hasSession) {
    return refuse(res, 401, `Runner Tray: open the address the headless host printed (it opens one window, once). ${ctx.spentHint}`);
  }
  // Source maps stay on disk: the page does not need them and they are most of its bytes.
  if (url.pathname.endsWith('.map')) return refuse(res, 404, 'Not found.');
  // Loaded when the first window asks for a file (a host nobody opens never needs it).
  const { readRendererFile } = await import('../core/renderer-files');
  const file = await readRendererFile(ctx.staticDir, url.pathname);
  if (!file) {
    const built = await readRendererFile(ctx.staticDir, '/index.html');
    return refuse(res, 404, built ? 'Not found.' : 'Runner Tray: the window is not built on this host (run `npm run build`); scripts still connect.');
  }
  const headers: Record<string, string> = { 'content-type': file.type, ...SECURITY_HEADERS };
  if (file.type.startsWith('text/html')) headers['cache-control'] = 'no-store';
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : file.body);
}

/** A WebSocket upgrade: only to /ws, from an allowed host and origin, by a window session or the script token. */
function handleUpgrade(ctx: ServerContext, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  // Once upgraded, the HTTP server no longer watches this socket: a reset would be an
  // uncaught 'error' and take the process down.
  socket.on('error', (error: NodeJS.ErrnoException) => ctx.log.debug('headless: upgrade socket error', { error: error.code ?? errorText(error) }));
  const url = new URL(req.url ?? '/', 'http://placeholder');
  if (url.pathname !== '/ws') return refuseUpgrade(socket, 404, 'Not found.');
  if (!allowedHosts(ctx.port).has(req.headers.host ?? '')) return refuseUpgrade(socket, 403, 'Forbidden ctx.host.');
  if (url.searchParams.has('token')) {
    ctx.access.spend(url.searchParams.get('token'));
    return refuseUpgrade(
      socket,
      401,
      'A token never goes in the WebSocket address: a window offers its key as a subprotocol, a script sends the script token as an Authorization: Bearer header.',
    );
  }
  // `?profile=<id>`: a window that shows that profile; its first view's answers are pushed.
  const firstProfile = url.searchParams.has('profile') ? ProfileIdSchema.safeParse(url.searchParams.get('profile')) : null;
  if (firstProfile && !firstProfile.success) return refuseUpgrade(socket, 400, 'Bad request.');
  // A browser always sends its Origin and cannot set Authorization; a script may do without an Origin.
  const requestOrigin = req.headers.origin;
  if (requestOrigin !== undefined && !allowedOrigins(ctx.port).has(requestOrigin)) return refuseUpgrade(socket, 403, 'Forbidden origin.');
  // A window: the cookie and the key only this origin's page holds (a cookie replayed from another port has no key).
  const bySession = requestOrigin !== undefined && ctx.access.isWindow(cookieValue(req, sessionCookieName(ctx.port)), offeredWindowKey(req));
  if (!bySession && !ctx.access.isScript(bearerToken(req))) return refuseUpgrade(socket, 401, 'Missing or wrong session.');
  void ctx.webSockets().then(
    (ws) => {
      if (ws.clients.size >= ctx.maxConnections) return refuseUpgrade(socket, 503, `Too many windows are connected (${ctx.maxConnections}); close one.`);
      // A browser session is the operator's window; the Bearer (the script token, from the token file) is a script's.
      ws.handleUpgrade(req, socket, head, (client) => serveBridge(ctx, client, firstProfile?.data ?? null, bySession ? 'window' : 'script'));
    },
    (error: unknown) => {
      ctx.log.error('headless: the WebSocket server could not be loaded', { error: errorText(error) });
      refuseUpgrade(socket, 503, 'The host could not open a window connection.');
    },
  );
}

function send(ws: WebSocket, frame: WsServerFrame): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
}

/**
 * The answers a window asks for first, sent unasked as each is ready: the window finds
 * them when it asks, and its first view waits for no round trip after the socket opens.
 * Every one is answered (a failure as an error result): the window waits for them.
 */
function pushFirstView(ctx: ServerContext, ws: WebSocket, profile: string): void {
  for (const { command, input } of firstViewRequests(profile)) {
    void ctx.host.invoke(command, input).then(
      (result) => send(ws, { type: 'first', command, input, result }),
      (error: unknown) => {
        ctx.log.error('a window command failed', { command, error: errorText(error) });
        send(ws, {
          type: 'first',
          command,
          input,
          result: { ok: false, error: { code: TransportErrorCode.internal, message: `${command} failed on the ctx.host.` } },
        });
      },
    );
  }
}

function serveBridge(ctx: ServerContext, ws: WebSocket, firstProfile: string | null, caller: Caller): void {
  // A protocol error (oversized, compressed or unmasked frame, bad UTF-8) closes this
  // connection; ws reports it here, and unheard it would end the process.
  ws.on('error', (error) => ctx.log.info('a window connection was dropped', { error: errorText(error) }));
  const unsubscribe = ctx.host.subscribe((events: HostEvent[]) => send(ws, { type: 'events', events }));
  if (firstProfile !== null) pushFirstView(ctx, ws, firstProfile);
  // A connected window shows the live figures: capacity is sampled every 5 s while one is.
  const unwatch = ctx.host.watch();
  const limit = new RateLimit(ctx.commandsPerSecond, ctx.commandsPerSecond * 2);
  let alive = true;
  const ping = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, 30_000);
  ping.unref();
  ws.on('pong', () => (alive = true));
  ws.on('close', () => {
    clearInterval(ping);
    unsubscribe();
    unwatch();
  });
  ws.on('message', (data, isBinary) => {
    if (ws.readyState !== ws.OPEN) return;
    if (!limit.take()) {
      ctx.log.warn('closed a window connection that sent too many commands', { perSecond: ctx.commandsPerSecond });
      return ws.close(1008, 'too many commands');
    }
    if (isBinary) return ws.close(1003, 'text frames only');
    let raw: unknown;
    try {
      raw = JSON.parse(textOf(data));
    } catch {
      return ws.close(1007, 'invalid JSON');
    }
    const frame = WsClientFrameSchema.safeParse(raw);
    if (!frame.success) return ws.close(1008, 'invalid frame');
    void ctx.host
      .invoke(frame.data.command, frame.data.input, caller)
      .then((result) => send(ws, { type: 'result', id: frame.data.id, result }))
      .catch((error: unknown) => ctx.log.error('a window command failed', { command: frame.data.command, error: errorText(error) }));
  });
}

/** A text frame's payload (ws hands it over as one Buffer, fragments, or an ArrayBuffer). */
function textOf(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
