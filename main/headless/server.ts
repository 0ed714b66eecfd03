import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { EVENT_CHANNEL, WsClientFrameSchema, type HostEvent, type WsServerFrame } from '../../shared/contract';
import { RENDERER_CSP } from '../../shared/csp';
import type { Host } from '../core/host';
import type { Logger } from '../core/ports';
import { allowedHosts, allowedOrigins, cookieToken, newLaunchToken, TOKEN_COOKIE, tokensEqual } from './auth';
import { readRendererFile } from '../core/renderer-files';
import { isHealthz, serveHealthz } from './health';
import { errorText } from '../../shared/errors';

export interface HeadlessServerOptions {
  host: Host;
  staticDir: string;
  log: Logger;
  /** 0 picks a free port. */
  port?: number;
  token?: string;
  maxPayloadBytes?: number;
}

export interface HeadlessServer {
  readonly port: number;
  readonly origin: string;
  /** The address to open; it carries the launch token. */
  readonly url: string;
  close(): Promise<void>;
}

const SECURITY_HEADERS = {
  'content-security-policy': RENDERER_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // The token is in the first URL; never let it leave in a Referer.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

function refuse(res: ServerResponse, status: 401 | 403 | 404 | 405, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS, connection: 'close' });
  res.end(message);
}

function refuseUpgrade(socket: Duplex, status: 401 | 403 | 404, message: string): void {
  const reason = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' }[status];
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(message)}\r\n\r\n${message}`);
}

/**
 * Serves the built renderer and a WebSocket bridge over the same core, on 127.0.0.1
 * only, behind a per-launch token and an Origin check.
 */
export async function startHeadlessServer(options: HeadlessServerOptions): Promise<HeadlessServer> {
  const { host, log } = options;
  const token = options.token ?? newLaunchToken();
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes ?? 1024 * 1024 });
  let port = 0;

  const server = http.createServer((req, res) => {
    void handleHttp(req, res).catch((error: unknown) => {
      log.error('headless request failed', { error: errorText(error) });
      if (!res.headersSent) res.writeHead(500, SECURITY_HEADERS);
      res.end();
    });
  });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!allowedHosts(port).has(req.headers.host ?? '')) return refuse(res, 403, 'Forbidden host.');
    // Probes: no token, status only (see health.ts).
    if (isHealthz(req)) return serveHealthz(req, res, () => host.status());
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'Method not allowed.');
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    const queryToken = url.searchParams.get('token');
    const authorized = tokensEqual(queryToken, token) || tokensEqual(cookieToken(req), token);
    if (!authorized) {
      return refuse(res, 401, 'Runner Tray: open the address the headless host printed at start (it carries the access token).');
    }
    const file = await readRendererFile(options.staticDir, url.pathname);
    if (!file) return refuse(res, 404, 'Not found.');
    const headers: Record<string, string> = { 'content-type': file.type, ...SECURITY_HEADERS };
    if (file.type.startsWith('text/html')) {
      headers['cache-control'] = 'no-store';
      headers['set-cookie'] = `${TOKEN_COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    }
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : file.body);
  }

  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname !== '/ws') return refuseUpgrade(socket, 404, 'Not found.');
    if (!allowedHosts(port).has(req.headers.host ?? '')) return refuseUpgrade(socket, 403, 'Forbidden host.');
    if (!allowedOrigins(port).has(req.headers.origin ?? '')) return refuseUpgrade(socket, 403, 'Forbidden origin.');
    if (!tokensEqual(url.searchParams.get('token'), token)) return refuseUpgrade(socket, 401, 'Missing or wrong token.');
    wss.handleUpgrade(req, socket, head, (ws) => serveBridge(ws));
  });

  function send(ws: WebSocket, frame: WsServerFrame): void {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  }

  function serveBridge(ws: WebSocket): void {
    const unsubscribe = host.subscribe((events: HostEvent[]) => send(ws, { type: 'events', events }));
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
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(1003, 'text frames only');
      let raw: unknown;
      try {
        raw = JSON.parse(textOf(data));
      } catch {
        return ws.close(1007, 'invalid JSON');
      }
      const frame = WsClientFrameSchema.safeParse(raw);
      if (!frame.success) return ws.close(1008, 'invalid frame');
      void host.invoke(frame.data.command, frame.data.input).then((result) => send(ws, { type: 'result', id: frame.data.id, result }));
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  log.info('headless host listening', { origin, channel: EVENT_CHANNEL });

  return {
    port,
    origin,
    url: `${origin}/?token=${token}`,
    async close() {
      for (const client of wss.clients) client.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

/** A text frame's payload (ws hands it over as one Buffer, fragments, or an ArrayBuffer). */
function textOf(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
