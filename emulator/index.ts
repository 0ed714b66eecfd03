import { EmulatorAdmin } from './admin/admin-api';
import { adminRoutes } from './admin/admin-routes';
import { DEFAULT_CONFIG, mergeConfig, type ConfigPatch } from './config';
import type { EmulatorContext } from './context';
import { openDatabase } from './db/database';
import { Trickle } from './demo/trickle';
import { EventLog } from './events';
import { Router } from './http/router';
import { EmulatorHttpServer } from './http/server';
import { forgeRoutes } from './routes/forge-routes';
import { mcpRoutes } from './routes/mcp-routes';
import { oauthRoutes } from './routes/oauth-routes';
import { pageRoutes } from './routes/page-routes';
import { pairingRoutes } from './routes/pairing-routes';
import { runnerRoutes } from './routes/runner-routes';
import { createServices } from './services';

export { EmulatorAdmin } from './admin/admin-api';
export type { ConfigPatch } from './config';
export { DEMO_OPERATORS } from './demo/demo-seed';

export interface StartEmulatorOptions {
  /** 0 (default) picks a free port. Always bound to 127.0.0.1. */
  port?: number;
  /** SQLite file, or ':memory:' (default). */
  db?: string;
  seed?: 'demo' | 'none';
  accessTokenTtlMs?: number;
  /** Injectable clock (ms since epoch) for every expiry decision. */
  now?: () => number;
  /** One line per request on stdout (method, path, status, ms; never headers or bodies). */
  log?: boolean;
  /** Source of randomness for fault rates and the trickle. */
  random?: () => number;
  /** Start the demo trickle of turn executions (off by default; never on in tests unless asked). */
  trickle?: boolean | { min_ms: number; max_ms: number };
  /** How often lease expiry runs on its own (default 1000 ms; 0 = only before requests and on admin.sweep()). */
  sweepIntervalMs?: number;
  /** Any other tunable (intervals, caps, long-poll limit, lease heartbeat, body limit...). */
  config?: ConfigPatch;
}

export interface RunningEmulator {
  url: string;
  port: number;
  admin: EmulatorAdmin;
  close(): Promise<void>;
}

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const now = options.now ?? Date.now;
  const db = openDatabase(options.db ?? ':memory:');
  const config = mergeConfig(DEFAULT_CONFIG, { ...options.config, ...(options.accessTokenTtlMs !== undefined ? { accessTokenTtlMs: options.accessTokenTtlMs } : {}) });
  const ctx: EmulatorContext = {
    db,
    config,
    now,
    random: options.random ?? Math.random,
    events: new EventLog(db, now),
    baseUrl: '',
    notifyWork: () => {},
  };
  const services = createServices(ctx);
  services.identity.ensureDefaultTenant();
  const trickle = new Trickle(services);
  const admin = new EmulatorAdmin(services, trickle);
  const router = new Router();
  router.add(
    ...pairingRoutes(services),
    ...runnerRoutes(services),
    ...forgeRoutes(services),
    ...oauthRoutes(services),
    ...mcpRoutes(services),
    ...pageRoutes(services),
    ...adminRoutes(admin, () => router.list()),
  );
  const http = new EmulatorHttpServer({
    router,
    faults: services.faults,
    bodyLimitBytes: () => ctx.config.bodyLimitBytes,
    log: options.log ?? false,
    beforeRequest: () => services.runtime.sweep(),
  });
  let port: number;
  try {
    port = await http.listen(options.port ?? 0);
  } catch (error) {
    db.close();
    throw error;
  }
  ctx.baseUrl = `http://127.0.0.1:${port}`;
  if (options.seed === 'demo') admin.seedDemo();
  if (options.trickle) admin.setTrickle(options.trickle === true ? true : { enabled: true, ...options.trickle });

  let sweeper: NodeJS.Timeout | null = null;
  const sweepEvery = options.sweepIntervalMs ?? 1000;
  const scheduleSweep = () => {
    sweeper = setTimeout(() => {
      services.runtime.sweep();
      scheduleSweep();
    }, sweepEvery);
    sweeper.unref();
  };
  if (sweepEvery > 0) scheduleSweep();

  let closed: Promise<void> | null = null;
  return {
    url: ctx.baseUrl,
    port,
    admin,
    close() {
      closed ??= (async () => {
        if (sweeper) clearTimeout(sweeper);
        trickle.stop();
        services.waiters.releaseAll();
        await http.close();
        ctx.events.clearListeners();
        db.close();
      })();
      return closed;
    },
  };
}
