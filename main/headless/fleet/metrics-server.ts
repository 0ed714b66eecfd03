import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorText } from '../../../shared/errors';
import type { FleetMetrics } from './metrics';

export interface MetricsServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` and nothing else, on a listener of its own without the window's token (a
 * Prometheus scraper cannot do the window's one-time-address dance): on 127.0.0.1 unless
 * `--metrics-host` asks for another address. Labels carry no secrets, but a fleet's turn
 * counts are still the operator's: bind elsewhere only behind a firewall.
 */
export async function startMetricsServer(options: {
  metrics: FleetMetrics;
  host: string;
  port: number;
  onError?: (message: string) => void;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Not found.\n');
      return;
    }
    void options.metrics.exposition().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        options.onError?.(`metrics: ${errorText(error)}`);
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Metrics failed.\n');
      },
    );
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shown = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    port,
    url: `http://${shown}:${port}/metrics`,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}
