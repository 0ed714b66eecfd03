import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunnerState, RunnerStatus } from '../../shared/status';

/** States in which the runner does its job (for a readiness probe); the rest still answer liveness. */
const READY_STATES: ReadonlySet<RunnerState> = new Set(['idle', 'working', 'paused', 'draining']);

/**
 * `GET /healthz`: no token, status only (the state word), never an id, a name or a code.
 * 200 while the process serves (liveness). `GET /healthz?ready=1`: 200 only while the
 * runner is paired and reaching its control plane, else 503 (readiness).
 */
export function healthz(url: URL, status: () => RunnerStatus): { code: number; body: string } {
  const state = status().state;
  const wantReady = url.searchParams.get('ready') === '1';
  const ready = READY_STATES.has(state);
  return { code: wantReady && !ready ? 503 : 200, body: `${JSON.stringify({ status: state, ready })}\n` };
}

export function isHealthz(req: IncomingMessage): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && (req.url === '/healthz' || (req.url ?? '').startsWith('/healthz?'));
}

export function serveHealthz(req: IncomingMessage, res: ServerResponse, status: () => RunnerStatus): void {
  const answer = healthz(new URL(req.url ?? '/healthz', 'http://health'), status);
  res.writeHead(answer.code, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A listener that answers `/healthz` and nothing else, for probes from outside the
 * machine (a container's kubelet): `--health-port <n>` / `RUNNER_TRAY_HEALTH_PORT`, on
 * `--health-host` / `RUNNER_TRAY_HEALTH_HOST` (default 0.0.0.0). The UI server stays
 * on loopback.
 */
export async function startHealthServer(options: { port: number; host: string; status: () => RunnerStatus }): Promise<HealthServer> {
  const server = http.createServer((req, res) => {
    if (isHealthz(req)) return serveHealthz(req, res, options.status);
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Not found.\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
