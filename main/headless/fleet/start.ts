import { existsSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Core } from '../../core/bootstrap';
import { systemClock } from '../../core/base/ports';
import { proxyAwareFetch } from '../../core/connectors/proxy-fetch';
import type { FleetOptions } from '../../core/settings/fleet-overrides';
import { LAST_RESORT_EXIT_CODE } from '../last-resort';
import { FleetMetrics } from './metrics';
import { startMetricsServer, type MetricsServer } from './metrics-server';
import { WebhookNotifier } from './webhook';

export interface Fleet {
  readonly metrics: MetricsServer | null;
  readonly webhook: WebhookNotifier | null;
  close(): Promise<void>;
}

interface FleetIo {
  out: { write(line: string): unknown };
  err: { write(line: string): unknown };
  dataDir: string;
  /** process, for the crash marker's removal on a clean exit. */
  proc?: Pick<NodeJS.Process, 'once'>;
}

/** Present while a host runs; left behind by one that crashed (exit 70, or killed). */
const MARKER = 'headless-running';

/** Whether the last host over this data folder ended without a clean exit; marks this one as running. */
export function markRunning(dataDir: string, proc?: FleetIo['proc']): boolean {
  const marker = path.join(dataDir, MARKER);
  const crashed = existsSync(marker);
  writeFileSync(marker, `${process.pid}\n`, { mode: 0o600 });
  proc?.once('exit', (code) => {
    if (code !== LAST_RESORT_EXIT_CODE) rmSync(marker, { force: true });
  });
  return crashed;
}

/** `/metrics` and the webhook of a headless host, as its options ask (main/core/settings/fleet-overrides.ts). */
export async function startFleet(core: Core, options: FleetOptions, io: FleetIo): Promise<Fleet> {
  const offs: (() => void)[] = [];
  let server: MetricsServer | null = null;
  let webhook: WebhookNotifier | null = null;
  if (options.webhookUrl) {
    const notifier = new WebhookNotifier({
      url: options.webhookUrl,
      host: os.hostname(),
      clock: systemClock,
      fetch: proxyAwareFetch(),
      log: (line) => io.err.write(`runner-tray headless: ${line}\n`),
    });
    webhook = notifier;
    offs.push(core.host.subscribe((batch) => notifier.onEvents(batch)));
    io.out.write(`Webhook: notifications go to ${notifier.origin}\n`);
    if (markRunning(io.dataDir, io.proc)) notifier.notify('crash-restart', null, 'the host restarted after a crash (the previous run did not stop cleanly)');
  }
  if (options.metrics) {
    const metrics = new FleetMetrics();
    offs.push(core.host.subscribe((batch) => metrics.onEvents(batch)));
    server = await startMetricsServer({ metrics, host: options.metrics.host, port: options.metrics.port, onError: (line) => core.log.warn(line) });
    io.out.write(`Metrics: ${server.url} (no token: Prometheus scrapes it as is)\n`);
    if (!options.metrics.loopback) {
      io.err.write(
        `runner-tray headless: warning: /metrics listens on ${options.metrics.host}, beyond this machine, without a token; keep it behind a firewall.\n`,
      );
    }
  }
  return {
    metrics: server,
    webhook,
    async close() {
      for (const off of offs) off();
      webhook?.close();
      await server?.close();
    },
  };
}
