import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ZodError } from 'zod';
import { PayloadTooLarge, parseBody, parseCookies, readBody } from './body';
import type { FaultInjector, FaultPlan } from './faults';
import { HttpError, describeZodError, json, type Headers, type Reply } from './reply';
import type { Router } from './router';

export interface HttpServerOptions {
  router: Router;
  faults: FaultInjector;
  /** How an injected latency is waited out (default: a timer); tests hold it on a promise instead. */
  faultDelay?: (ms: number, method: string, path: string) => Promise<void>;
  bodyLimitBytes: () => number;
  log: boolean;
  /** Runs before each routed request (lazy lease expiry). */
  beforeRequest?: () => void;
}

const BASE_HEADERS: Headers = {
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function isLoopback(address: string | undefined): boolean {
  return !!address && (address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1');
}

/** node:http server bound to 127.0.0.1 with routing, body limits, fault injection and uniform errors. */
export class EmulatorHttpServer {
  readonly server: Server;
  private allowedHosts = new Set<string>();
  private origin = '';

  constructor(private readonly opts: HttpServerOptions) {
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    this.server.keepAliveTimeout = 5_000;
  }

  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const actual = (this.server.address() as AddressInfo).port;
    this.allowedHosts = new Set([`127.0.0.1:${actual}`, `localhost:${actual}`, `[::1]:${actual}`]);
    this.origin = `http://127.0.0.1:${actual}`;
    return actual;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    let path = '/';
    let status = 0;
    try {
      const url = new URL(req.url ?? '/', 'http://emulator.invalid');
      path = url.pathname;
      const reply = await this.route(req, res, method, path, url.searchParams);
      if (reply) status = this.send(res, reply);
    } catch (error) {
      status = this.send(res, this.toReply(error));
      if (error instanceof PayloadTooLarge && error.dropConnection) res.once('finish', () => req.socket.destroy());
    } finally {
      if (this.opts.log) {
        const ms = (performance.now() - started).toFixed(1);
        // Path only: query strings may carry codes; headers and bodies may carry secrets.
        process.stdout.write(`${method} ${path} ${status || 'dropped'} ${ms}ms\n`);
      }
    }
  }

  /** Returns the reply to send, or null when the connection was dropped on purpose. */
  private async route(req: IncomingMessage, res: ServerResponse, method: string, path: string, query: URLSearchParams): Promise<Reply | null> {
    // DNS-rebinding guard: a page elsewhere that resolves to 127.0.0.1 still sends its own Host.
    if (!this.allowedHosts.has(String(req.headers.host ?? '').toLowerCase())) {
      throw new HttpError(403, 'forbidden_host', 'Host header must name this loopback server');
    }
    const isAdmin = path === '/_emulator' || path.startsWith('/_emulator/');
    if (isAdmin) {
      if (!isLoopback(req.socket.remoteAddress)) throw new HttpError(403, 'forbidden', 'admin API is loopback only');
      const origin = req.headers.origin;
      if (origin && origin !== this.origin) throw new HttpError(403, 'forbidden', 'cross-origin admin call refused');
    }

    const plan = this.opts.faults.plan(method, path);
    if (plan) {
      if (plan.latencyMs > 0) await (this.opts.faultDelay ?? sleep)(plan.latencyMs, method, path);
      if (plan.dropBefore) {
        req.socket.destroy();
        return null;
      }
      if (plan.error) return json(plan.error.status, plan.error.body ?? { error: 'injected_fault', message: 'fault injected by the emulator' });
    }

    const match = this.opts.router.match(method, path);
    if (match.kind === 'not_found') throw new HttpError(404, 'not_found', `no route for ${path}`);
    if (match.kind === 'method_not_allowed') {
      throw new HttpError(405, 'method_not_allowed', `${method} is not allowed here`, { allow: match.allow }, { allow: match.allow.join(', ') });
    }

    const mode = match.route.body ?? (method === 'GET' ? 'none' : 'json');
    const raw = await readBody(req, this.opts.bodyLimitBytes());
    const body = parseBody(raw, mode, req.headers['content-type']);
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    this.opts.beforeRequest?.();
    let reply: Reply;
    try {
      reply = await match.route.handler({
        req,
        method,
        path,
        query,
        params: match.params,
        body,
        ip: req.socket.remoteAddress ?? 'unknown',
        cookies: parseCookies(req.headers.cookie),
        signal: controller.signal,
      });
    } catch (error) {
      reply = this.toReply(error);
    }
    if (plan?.dropAfter) {
      req.socket.destroy();
      return null;
    }
    return plan?.malformed ? malform(reply, plan) : reply;
  }

  private toReply(error: unknown): Reply {
    if (error instanceof HttpError) return error.toReply();
    if (error instanceof ZodError) return json(400, { error: 'invalid_request', message: describeZodError(error) });
    process.stderr.write(`emulator: internal error: ${error instanceof Error ? (error.stack ?? error.message) : 'unknown'}\n`);
    return json(500, { error: 'internal', message: 'internal emulator error' });
  }

  private send(res: ServerResponse, reply: Reply): number {
    if (res.headersSent || res.destroyed) return reply.status;
    const headers: Headers = { ...BASE_HEADERS, ...reply.headers };
    let payload: string | undefined;
    switch (reply.kind) {
      case 'json':
        headers['content-type'] = 'application/json; charset=utf-8';
        payload = JSON.stringify(reply.body);
        break;
      case 'html':
        headers['content-type'] = 'text/html; charset=utf-8';
        headers['content-security-policy'] = PAGE_CSP;
        headers['x-frame-options'] = 'DENY';
        // Same-origin (not no-referrer): otherwise browsers send `Origin: null` on form posts and the origin check fails.
        headers['referrer-policy'] = 'same-origin';
        payload = reply.html;
        break;
      case 'raw':
        headers['content-type'] = reply.contentType;
        payload = reply.text;
        break;
      case 'redirect':
        headers.location = reply.location;
        break;
      case 'empty':
        break;
    }
    res.writeHead(reply.status, headers);
    res.end(payload);
    return reply.status;
  }
}

function malform(reply: Reply, plan: FaultPlan): Reply {
  const status = reply.status === 204 ? 200 : reply.status;
  if (plan.malformed === 'empty') return { kind: 'raw', status, text: '', contentType: 'application/json; charset=utf-8' };
  if (plan.malformed === 'invalid_json') {
    return { kind: 'raw', status, text: '{"injected": "truncated', contentType: 'application/json; charset=utf-8' };
  }
  // Wrong types under the keys clients read most, so no response schema accepts it.
  return json(status, {
    injected: 'wrong_shape',
    turn_execution: 42,
    work_order: 'x',
    runner_id: 42,
    status: 7,
    accepted: 'yes',
    output: [],
    // the Sechroom wire's keys
    id: 42,
    outcome: 7,
    lease: 'x',
    claimToken: 42,
    expiresAt: 7,
    eventCount: 'x',
    hasTelemetry: 'x',
    taskId: 7,
    task: 'x',
    components: 'x',
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
