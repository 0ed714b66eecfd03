import { vi } from 'vitest';
import type { HostEvent } from '../../shared/contract';
import { defaultSettings } from '../../shared/settings';
import type { RunnerStatus } from '../../shared/status';
import { createDispatcher, type Handlers } from '../../main/core/base/dispatch';
import type { Host } from '../../main/core/host';
import { systemClock } from '../../main/core/base/ports';
import { QuitPolicy } from '../../main/core/quit-policy';
import type { ShellCore, ShellCoreOptions } from '../../main/electron/shell';
import { testLogging } from '../helpers/test-logger';

export interface TestCore {
  core: ShellCore;
  host: Host;
  /** What the shell asked bootstrap for. */
  options: ShellCoreOptions[];
  /** The last step of the core's quit (after the running turns are done). */
  shutdown: ReturnType<typeof vi.fn<() => Promise<void>>>;
  /** Stand-in running turns, as the quit policy sees them. */
  turns: { start(count: number): void; finishAll(): void; readonly active: number; readonly canceled: string[] };
  /** The quitDrainMs setting the quit policy reads. */
  drainMs: { value: number };
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
    'runner:quit': ({ mode }: { mode: 'after-turns' | 'now' | 'cancel' }) => {
      if (mode === 'cancel') quit.cancel();
      else void quit.quit(mode);
      return status;
    },
    'settings:get': () => ({ settings: defaultSettings('test-host'), overridden: [], warnings: [] }),
    'usage:get': () => ({ accounts: [], reservePercent: 2 }),
    'profiles:list': () => [],
    'log:recent': (input: { limit?: number } | undefined) => logging.feed.recent(input?.limit ?? 200),
  } as unknown as Handlers;
  const invoke = createDispatcher(handlers, logging.log.child('dispatch'));
  const emit = (batch: HostEvent[]) => listeners.forEach((listener) => listener(batch));
  const host: Host = {
    invoke,
    watch: () => () => {},
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    status: () => status,
    start: async () => {},
    stop: async () => {},
  };
  const shutdown = vi.fn(async () => {});
  // The real quit policy over stand-in turns: what before-quit and the tray do to running work is real.
  let active = 0;
  const canceled: string[] = [];
  let idleWaiters: Array<() => void> = [];
  const finishAll = () => {
    active = 0;
    const waiters = idleWaiters;
    idleWaiters = [];
    waiters.forEach((w) => w());
  };
  const turns: TestCore['turns'] = {
    start: (count) => void (active += count),
    finishAll,
    get active() {
      return active;
    },
    canceled,
  };
  const drainMs = { value: 5 * 60_000 };
  const quit = new QuitPolicy({
    clock: systemClock,
    log: logging.log.child('quit'),
    work: {
      get activeCount() {
        return active;
      },
      holdClaims: () => {},
      releaseClaims: () => {},
      cancelAll: (reason) => {
        const n = active;
        for (let i = 0; i < n; i++) canceled.push(reason);
        finishAll();
        return n;
      },
      whenIdle: () => (active === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve))),
    },
    setStopping: (stopping) => {
      status = stopping
        ? { state: 'draining', remaining: active, deadline: new Date(stopping.deadline).toISOString(), mode: stopping.mode, reason: 'Quitting.' }
        : { state: 'idle', reason: 'Connected and waiting for work.' };
      emit([{ event: 'runner:status', payload: status }]);
    },
    drainLimitMs: () => drainMs.value,
    shutdown: () => shutdown(),
    undelivered: () => 0,
  });
  const core: ShellCore = {
    host,
    log: logging.log,
    quit: (mode) => quit.quit(mode),
    onQuit: (l) => quit.onQuit(l),
    quitDrainMs: () => drainMs.value,
    // As the core does: the window and the tray hear of it through app:update.
    announceUpdate: (notice) => emit([{ event: 'app:update', payload: notice }]),
  };
  const options: TestCore['options'] = [];
  return {
    core,
    host,
    options,
    shutdown,
    turns,
    drainMs,
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
