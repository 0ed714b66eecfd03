import type { HostEvent } from '../../shared/contract';
import type { Result } from '../../shared/result';
import type { RunnerStatus } from '../../shared/status';
import { createDispatcher, type Caller, type Handlers } from './base/dispatch';
import type { EventHub } from './event-hub';
import type { LogFeed, Logger } from './base/ports';

/** A service the host starts and stops with itself; both must be idempotent. */
export interface Service {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface HostOptions {
  hub: EventHub;
  handlers: Handlers;
  log: Logger;
  logFeed: LogFeed;
  /** The host's status: the worst of its profiles' (the tray's look, the health probe). */
  status(): RunnerStatus;
  /** Each profile's own status, named by its profile (sent once the host has started). */
  profileStatuses(): RunnerStatus[];
  /** A window shows the live figures until the returned release is called (capacity is sampled every 5 s meanwhile). */
  watch?(): () => void;
  /** Started in order, stopped in reverse. */
  services: Service[];
}

export interface Host {
  /** Runs a contract command; the input is untrusted and parsed here. */
  invoke(name: unknown, input: unknown, caller?: Caller): Promise<Result<unknown>>;
  /** Batches of events, for the IPC and WebSocket bridges and the tray. */
  subscribe(listener: (batch: HostEvent[]) => void): () => void;
  status(): RunnerStatus;
  /**
   * A window (an Electron window, a browser tab) shows the live figures: call the returned
   * release when it goes. While none does, the host samples capacity only at heartbeat time.
   */
  watch(): () => void;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * What both shells see of the core: the contract's commands, its events, start and stop.
 * The Electron entry and the headless entry each build one (see bootstrap.ts) and adapt it.
 */
export function createHost(options: HostOptions): Host {
  const { hub, log } = options;
  const invoke = createDispatcher(options.handlers, log.child('dispatch'));
  let started = false;
  let unsubscribeLog: (() => void) | null = null;

  return {
    invoke,
    subscribe: (listener) => hub.subscribe(listener),
    status: () => options.status(),
    watch: () => options.watch?.() ?? (() => {}),
    async start() {
      if (started) return;
      started = true;
      unsubscribeLog = options.logFeed.subscribe((entry) => hub.emit({ event: 'log:entries', payload: [entry] }));
      for (const service of options.services) await service.start();
      // Each profile's own: the combined status is no one profile's, and sent as one it would stand for it.
      for (const status of options.profileStatuses()) hub.emit({ event: 'runner:status', payload: status });
    },
    async stop() {
      if (!started) return;
      started = false;
      for (const service of [...options.services].reverse()) await service.stop();
      unsubscribeLog?.();
      unsubscribeLog = null;
      hub.flush();
      hub.dispose();
    },
  };
}
