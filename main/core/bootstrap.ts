import os from 'node:os';
import type { LogEntry } from '../../shared/contract';
import { createHost, type Host } from './host';
import { hostPaths } from './paths';
import { systemClock, type Clock, type LogFeed, type Logger, type PlatformInfo } from './ports';

export interface CoreOptions {
  mode: 'electron' | 'headless';
  appName: string;
  appVersion: string;
  dataDir: string;
  /** Electron and Node report their own versions; defaults to this process's. */
  platform?: PlatformInfo;
  clock?: Clock;
}

export interface Core {
  host: Host;
  log: Logger;
  shutdown(): Promise<void>;
}

export function currentPlatform(): PlatformInfo {
  return {
    platform: process.platform,
    arch: process.arch,
    release: os.release(),
    hostname: os.hostname(),
    versions: {
      node: process.versions.node,
      electron: process.versions.electron ?? null,
      chrome: process.versions.chrome ?? null,
    },
  };
}

/** Builds the core the same way for both entries (Electron and headless). */
export async function bootstrapCore(options: CoreOptions): Promise<Core> {
  const clock = options.clock ?? systemClock;
  const paths = hostPaths(options.dataDir);
  const logging = createMemoryLogging(clock);
  const host = createHost({
    mode: options.mode,
    appName: options.appName,
    appVersion: options.appVersion,
    dataDir: paths.dataDir,
    logDir: paths.logDir,
    platform: options.platform ?? currentPlatform(),
    clock,
    log: logging.log,
    logFeed: logging.feed,
  });
  await host.start();
  return {
    host,
    log: logging.log,
    async shutdown() {
      await host.stop();
    },
  };
}

// Interim in-memory logging; replaced by the pino logger of main/core/logging.
function createMemoryLogging(clock: Clock): { log: Logger; feed: LogFeed } {
  const ring: LogEntry[] = [];
  const listeners = new Set<(entry: LogEntry) => void>();
  let seq = 0;
  const make = (component?: string): Logger => {
    const write = (level: LogEntry['level']) => (msg: string, data?: Record<string, unknown>) => {
      const entry: LogEntry = { seq: seq++, time: new Date(clock.now()).toISOString(), level, msg, component, data };
      ring.push(entry);
      if (ring.length > 500) ring.shift();
      listeners.forEach((l) => l(entry));
    };
    return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child: (c) => make(c) };
  };
  return {
    log: make(),
    feed: {
      recent: (limit) => ring.slice(-limit),
      subscribe: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
  };
}
