import type { IncomingMessage } from 'node:http';
import { listenLoopback, readBody, type LoopbackServer } from '../../stubs/http-stub';

/** What a stub route answers: JSON, raw text, or a dropped connection. */
export type StubAnswer = { status: number; json?: unknown; raw?: string } | { drop: true };

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface StubServer {
  origin: string;
  seen: SeenRequest[];
  /** `METHOD /path` → answer (a function sees the request). */
  routes: Map<string, StubAnswer | ((req: SeenRequest) => StubAnswer)>;
  close(): Promise<void>;
}

/** A loopback control plane whose every answer a test chooses, malformed ones included. */
export async function startStub(): Promise<StubServer> {
  const seen: SeenRequest[] = [];
  const routes: StubServer['routes'] = new Map();
  let server: LoopbackServer | null = null;
  server = await listenLoopback(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const request: SeenRequest = { method: req.method ?? 'GET', path, headers: req.headers, body: await readBody(req) };
    seen.push(request);
    const route = routes.get(`${request.method} ${path}`);
    const answer = typeof route === 'function' ? route(request) : (route ?? { status: 404, json: { error: 'not_found', message: 'no stub route' } });
    if ('drop' in answer) {
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.raw ?? (answer.json === undefined ? '' : JSON.stringify(answer.json)));
  });
  return { origin: server.origin, seen, routes, close: () => server!.close() };
}

export function form(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}
