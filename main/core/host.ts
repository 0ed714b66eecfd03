import type { AppInfo, HostEvent } from '../../shared/contract';
import type { Result } from '../../shared/result';
import type { RunnerStatus } from '../../shared/status';
import { createDispatcher, type Handlers } from './dispatch';
import { EventHub } from './event-hub';
import type { Clock, LogFeed, Logger, PlatformInfo } from './ports';

export interface HostOptions {
  mode: AppInfo['mode'];
  appName: string;
  appVersion: string;
  dataDir: string;
  logDir: string;
  platform: PlatformInfo;
  clock: Clock;
  log: Logger;
  logFeed: LogFeed;
}

export interface Host {
  /** Runs a contract command; the input is untrusted and parsed here. */
  invoke(name: unknown, input: unknown): Promise<Result<unknown>>;
  /** Batches of events, for the IPC and WebSocket bridges and the tray. */
  subscribe(listener: (batch: HostEvent[]) => void): () => void;
  status(): RunnerStatus;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The composition root: wires the core's services and exposes them through the contract.
 * The Electron entry and the headless entry each build one Host and adapt it.
 */
export function createHost(options: HostOptions): Host {
  const { clock, log } = options;
  const startedAt = clock.now();
  const hub = new EventHub(clock);
  let started = false;
  let unsubscribeLog: (() => void) | null = null;

  // The runner arrives with pairing; until then the machine is honestly unpaired.
  let status: RunnerStatus = { state: 'unpaired', reason: 'This machine is not paired with a control plane yet.' };

  const handlers: Handlers = {
    'app:info': () => ({
      name: options.appName,
      version: options.appVersion,
      mode: options.mode,
      platform: options.platform.platform,
      arch: options.platform.arch,
      hostname: options.platform.hostname,
      runtimeVersions: options.platform.versions,
      startedAt: new Date(startedAt).toISOString(),
      uptimeMs: Math.max(0, clock.now() - startedAt),
      dataDir: options.dataDir,
      logDir: options.logDir,
    }),
    'runner:status': () => status,
    'log:recent': (input) => options.logFeed.recent(input?.limit ?? 200),
  };
  const invoke = createDispatcher(handlers, log.child('dispatch'));

  return {
    invoke,
    subscribe: (listener) => hub.subscribe(listener),
    status: () => status,
    async start() {
      if (started) return;
      started = true;
      unsubscribeLog = options.logFeed.subscribe((entry) => hub.emit({ event: 'log:entries', payload: [entry] }));
      log.info('host started', { mode: options.mode, version: options.appVersion });
      hub.emit({ event: 'runner:status', payload: status });
    },
    async stop() {
      if (!started) return;
      started = false;
      log.info('host stopping');
      unsubscribeLog?.();
      unsubscribeLog = null;
      hub.flush();
      hub.dispose();
    },
  };
}
