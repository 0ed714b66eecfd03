import { vi } from 'vitest';
import type { HostEvent } from '../../shared/contract';
import { defaultSettings } from '../../shared/settings';
import type { RunnerStatus } from '../../shared/status';
import { createDispatcher, type Handlers } from '../../main/core/dispatch';
import type { Host } from '../../main/core/host';
import type { ShellCore, ShellCoreOptions } from '../../main/electron/shell';
import { testLogging } from '../helpers/test-logger';

export interface TestCore {
  core: ShellCore;
  host: Host;
  /** What the shell asked bootstrap for. */
  options: ShellCoreOptions[];
  shutdown: ReturnType<typeof vi.fn<() => Promise<void>>>;
  logged: ReturnType<typeof testLogging>['entries'];
  /** Pushes a batch to the host's subscribers, as the core's event hub does. */
  emit(batch: HostEvent[]): void;
  setStatus(status: RunnerStatus): void;
  bootstrap: (options: ShellCoreOptions) => Promise<ShellCore>;
}

/**
 * A core for the shell's tests whose `invoke` is the real thing: the host's dispatcher,
 * which parses every input from `unknown` with the contract's zod schemas. Only the
 * handlers are stand-ins (a few commands, fixed answers), so these tests do not depend
 * on the runner, the keychain or the control plane.
 */
export function createTestCore(): TestCore {
  const logging = testLogging();
  let status: RunnerStatus = { state: 'unpaired', reason: 'This machine is not paired yet.' };
  const listeners = new Set<(batch: HostEvent[]) => void>();
  const handlers = {
    'app:info': () => ({ name: 'Runner Tray', version: '9.8.7-test', mode: 'electron' }),
    'runner:status': () => status,
    // What the tray and the login item ask for at start.
    'runner:snapshot': () => ({
      status,
      pairing: null,
      identity: null,
      secretStorage: { backend: 'keychain', warning: null, problem: null },
      heartbeat: { lastOkAt: null, nextAt: null, consecutiveFailures: 0, longPoll: false, intervalMs: 30_000 },
      runtimes: null,
      modelAccount: { alias: 'default', state: 'unknown' },
      sessions: { active: 0, max: 1 },
      paused: null,
    }),
    'settings:get': () => ({ settings: defaultSettings('test-host'), overridden: [], warnings: [] }),
    'usage:get': () => ({ accounts: [], reservePercent: 2 }),
    'log:recent': (input: { limit?: number } | undefined) => logging.feed.recent(input?.limit ?? 200),
  } as unknown as Handlers;
  const invoke = createDispatcher(handlers, logging.log.child('dispatch'));
  const emit = (batch: HostEvent[]) => listeners.forEach((listener) => listener(batch));
  const host: Host = {
    invoke,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    status: () => status,
    start: async () => {},
    stop: async () => {},
  };
  const shutdown = vi.fn(async () => {});
  const core: ShellCore = { host, log: logging.log, shutdown };
  const options: TestCore['options'] = [];
  return {
    core,
    host,
    options,
    shutdown,
    logged: logging.entries,
    emit,
    setStatus(next) {
      status = next;
      emit([{ event: 'runner:status', payload: next }]);
    },
    bootstrap: async (o) => {
      options.push(o);
      return core;
    },
  };
}
