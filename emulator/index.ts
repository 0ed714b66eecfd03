import { EmulatorAdmin } from './admin/admin-api';
import { adminRoutes } from './admin/admin-routes';
import { DEFAULT_CONFIG, mergeConfig, type ConfigPatch } from './config';
import type { EmulatorContext } from './context';
import { openDatabase } from './db/database';
import { Trickle } from './demo/trickle';
import { EventLog } from './events';
import { Router, type RouteDef } from './http/router';
import { EmulatorHttpServer } from './http/server';
import { forgeRoutes } from './routes/forge-routes';
import { mcpRoutes } from './routes/mcp-routes';
import { oauthRoutes } from './routes/oauth-routes';
import { pageRoutes } from './routes/page-routes';
import { pairingRoutes } from './routes/pairing-routes';
import { runnerRoutes } from './routes/runner-routes';
import { createSechroomPlane, SECHROOM_BASE, type SechroomAdmin, type SechroomConfig } from './sechroom/index';
import { createServices, type Services } from './services';

export { EmulatorAdmin } from './admin/admin-api';
export type { ConfigPatch } from './config';
export { DEMO_OPERATORS } from './demo/demo-seed';
export { SechroomAdmin } from './sechroom/index';
export type { SechroomConfig } from './sechroom/index';

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
  /** Work Layer tunables (lease TTL, token lifetime, claim stagger); the plane always runs at `/sechroom`. */
  sechroom?: Partial<SechroomConfig>;
  /** How an injected fault latency is waited out (default: a timer). Tests pass a held promise. */
  faultDelay?: (ms: number, method: string, path: string) => Promise<void>;
}

export interface RunningEmulator {
  url: string;
  port: number;
  admin: EmulatorAdmin;
  /** The Sechroom Work Layer's admin helpers. */
  sechroom: SechroomAdmin;
  /** `<url>/sechroom`: the base URL a Sechroom client uses. */
  sechroomUrl: string;
  close(): Promise<void>;
}

export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const ctx = createContext(options);
  const { db } = ctx;
  const services = createServices(ctx);
  services.identity.ensureDefaultTenant();
  const trickle = new Trickle(services);
  const sechroom = createSechroomPlane(services, options.sechroom);
  const admin = new EmulatorAdmin(services, trickle, {
    beforeReset: () => sechroom.stop(),
    afterSeedDemo: () => void sechroom.admin.seedDemo(),
  });
  const sweepAll = () => services.runtime.sweep() + sechroom.sweep();
  const http = new EmulatorHttpServer({
    router: buildRouter(services, sechroom.routes, admin),
    faults: services.faults,
    bodyLimitBytes: () => ctx.config.bodyLimitBytes,
    log: options.log ?? false,
    beforeRequest: () => void sweepAll(),
    ...(options.faultDelay ? { faultDelay: options.faultDelay } : {}),
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
  if (options.trickle) {
    const trickleOpts = options.trickle === true ? true : { enabled: true, ...options.trickle };
    admin.setTrickle(trickleOpts);
    sechroom.admin.setTrickle(trickleOpts);
  }
  const stopSweeper = startSweeper(sweepAll, options.sweepIntervalMs ?? 1000);

  let closed: Promise<void> | null = null;
  return {
    url: ctx.baseUrl,
    port,
    admin,
    sechroom: sechroom.admin,
    sechroomUrl: `${ctx.baseUrl}${SECHROOM_BASE}`,
    close() {
      closed ??= (async () => {
        stopSweeper();
        trickle.stop();
        sechroom.stop();
        services.waiters.releaseAll();
        await http.close();
        ctx.events.clearListeners();
        db.close();
      })();
      return closed;
    },
  };
}

/** The database, merged config and clock every part of the emulator shares; the base URL is set once the port is known. */
function createContext(options: StartEmulatorOptions): EmulatorContext {
  const now = options.now ?? Date.now;
  const db = openDatabase(options.db ?? ':memory:');
  const config = mergeConfig(DEFAULT_CONFIG, {
    ...options.config,
    ...(options.accessTokenTtlMs !== undefined ? { accessTokenTtlMs: options.accessTokenTtlMs } : {}),
  });
  return {
    db,
    config,
    now,
    random: options.random ?? Math.random,
    events: new EventLog(db, now),
    baseUrl: '',
    notifyWork: () => {},
  };
}

/** Every plane's routes, then the admin routes (which list them all). */
function buildRouter(services: Services, sechroomRoutes: RouteDef[], admin: EmulatorAdmin): Router {
  const router = new Router();
  router.add(
    ...pairingRoutes(services),
    ...runnerRoutes(services),
    ...forgeRoutes(services),
    ...oauthRoutes(services),
    ...mcpRoutes(services),
    ...pageRoutes(services),
    ...sechroomRoutes,
    ...adminRoutes(admin, () => router.list()),
  );
  return router;
}

/** Runs lease expiry every `every` ms (0: never on its own); returns the stop. */
function startSweeper(sweepAll: () => unknown, every: number): () => void {
  let sweeper: NodeJS.Timeout | null = null;
  const scheduleSweep = () => {
    sweeper = setTimeout(() => {
      sweepAll();
      scheduleSweep();
    }, every);
    sweeper.unref();
  };
  if (every > 0) scheduleSweep();
  return () => {
    if (sweeper) clearTimeout(sweeper);
  };
}
