import { chmod, mkdir, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../../base/ports';
import { isLoopbackHost, keyOf, targetOfUrl, type EgressTarget } from './allowlist';

/**
 * The host side of a sandboxed turn's network: an HTTP proxy that opens a connection only
 * to a host:port on the turn's allowlist. It speaks CONNECT (every https:// request, and
 * the bridge's loopback forwards) and absolute-URI forwarding for http:// targets, and
 * answers 403 to anything else, logging the host (never a path, query or header: they may
 * carry secrets). On Linux it listens on a unix socket in the turn's folder (mode 0600)
 * that bubblewrap binds into the sandbox; on macOS on 127.0.0.1:<random port>.
 *
 * A broken connection only ends that connection: every socket has an error handler, so
 * nothing from the network can throw into the host's loop.
 */
/** A unix socket (bubblewrap), or a loopback port: 0 for a free one, or the one a sandbox profile already names. */
export type EgressListen = { socketPath: string } | { port: number; host: '127.0.0.1' };

export interface EgressProxy {
  /** The unix socket path, or `127.0.0.1:<port>`. */
  readonly address: string;
  readonly port: number | null;
  /** Stops listening and ends every open connection (idempotent). */
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  listen: EgressListen;
  allow: readonly EgressTarget[];
  log: Logger;
}

function canonical(host: string): string {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return isLoopbackHost(bare) && bare !== '::1' ? '127.0.0.1' : bare;
}

/** `host:port` of a CONNECT line; null when it is not one. */
function connectTarget(authority: string | undefined): EgressTarget | null {
  const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(authority ?? '');
  if (!match?.[1] || !match[2]) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return null;
  return { host: canonical(match[1]), port };
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const allowed = new Set(options.allow.map((t) => keyOf({ host: canonical(t.host), port: t.port })));
  const log = options.log;
  const open = new Set<Duplex>();
  const track = (socket: Duplex) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    // An error on one connection ends it; it never reaches the loop.
    socket.on('error', () => socket.destroy());
  };
  const deny = (target: EgressTarget | null, why: string) => {
    log.warn('egress denied', { target: target ? keyOf(target) : 'unparsable', why });
  };

  const gate: Gate = { allowed, deny, track };
  const server = http.createServer((req, res) => forwardPlain(gate, req, res));
  server.on('connect', (req: http.IncomingMessage, client: Duplex, head: Buffer) => tunnel(gate, req, client, head));
  server.on('connection', (socket: net.Socket) => track(socket));
  server.on('clientError', (_error, socket) => socket.destroy());

  let address: string;
  let port: number | null = null;
  if ('socketPath' in options.listen) {
    const socketPath = options.listen.socketPath;
    await mkdir(path.dirname(socketPath), { recursive: true, mode: 0o700 });
    await rm(socketPath, { force: true }); // a crashed host's leftover
    await listen(server, socketPath);
    // The sandbox and this user only (bubblewrap binds the file; nothing else on the host may use it).
    await chmod(socketPath, 0o600);
    address = socketPath;
  } else {
    await listen(server, { host: '127.0.0.1', port: options.listen.port });
    const info = server.address();
    port = typeof info === 'object' && info ? info.port : null;
    address = `127.0.0.1:${port}`;
  }

  let closing: Promise<void> | null = null;
  return {
    address,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => ('socketPath' in options.listen ? rm(options.listen.socketPath, { force: true }) : undefined));
      return closing;
    },
  };
}

/** What both request kinds check against: the allowlist, the refusal's log line, the open sockets. */
interface Gate {
  allowed: ReadonlySet<string>;
  deny(target: EgressTarget | null, why: string): void;
  track(socket: Duplex): void;
}

/** A plain http:// request with an absolute URL: forwarded when its host and port are allowed. */
function forwardPlain(gate: Gate, req: http.IncomingMessage, res: http.ServerResponse): void {
  const { allowed, deny } = gate;
  const target = req.url ? targetOfUrl(req.url) : null;
  if (!target || !req.url?.startsWith('http://')) {
    deny(target, 'not an absolute http:// request');
    res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' }).end('egress proxy: absolute http:// URLs or CONNECT only\n');
    return;
  }
  const key = keyOf({ host: canonical(target.host), port: target.port });
  if (!allowed.has(key)) {
    deny(target, 'not on the allowlist');
    res.writeHead(403, { 'content-type': 'text/plain', connection: 'close' }).end(`egress proxy: ${key} is not allowed\n`);
    return;
  }
  const url = new URL(req.url);
  const headers = { ...req.headers };
  delete headers['proxy-connection'];
  delete headers['proxy-authorization'];
  const upstream = http.request({ host: canonical(target.host), port: target.port, method: req.method, path: `${url.pathname}${url.search}`, headers });
  upstream.on('response', (response) => {
    res.writeHead(response.statusCode ?? 502, response.headers);
    response.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain', connection: 'close' });
    res.end();
  });
  req.on('error', () => upstream.destroy());
  req.pipe(upstream);
}

/** A CONNECT tunnel: opened to the target when it is allowed, refused with 403 otherwise. */
function tunnel(gate: Gate, req: http.IncomingMessage, client: Duplex, head: Buffer): void {
  const { allowed, deny, track } = gate;
  track(client);
  const target = connectTarget(req.url);
  if (!target || !allowed.has(keyOf(target))) {
    deny(target, 'not on the allowlist');
    client.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    return;
  }
  const upstream = net.connect({ host: target.host, port: target.port });
  track(upstream);
  upstream.once('connect', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.once('error', () => {
    if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  client.once('close', () => upstream.destroy());
  upstream.once('close', () => client.destroy());
}

function listen(server: http.Server, where: string | { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const done = () => {
      server.off('error', reject);
      // Later server errors (EMFILE on accept) are logged by nobody and harm nothing.
      server.on('error', () => undefined);
      resolve();
    };
    if (typeof where === 'string') server.listen(where, done);
    else server.listen(where.port, where.host, done);
  });
}
