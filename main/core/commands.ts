import type { AppInfo, SettingsView } from '../../shared/contract';
import type { SettingKey } from '../../shared/settings';
import type { PersistentSettingsStore } from './settings/settings-store';
import { CommandFailure, type Handlers } from './dispatch';
import type { Clock, LogFeed } from './ports';
import { CommandRefused, type Runner } from './runner/runner';
import type { CapacityHistory } from './runner/telemetry';
import type { TurnRegistry } from './work/turn-registry';
import type { WorkManager } from './work/work-manager';

export interface CommandServices {
  appInfo: Omit<AppInfo, 'uptimeMs' | 'startedAt'>;
  startedAt: number;
  clock: Clock;
  runner: Runner;
  history: CapacityHistory;
  logFeed: LogFeed;
  registry: TurnRegistry;
  work: WorkManager;
  settings: PersistentSettingsStore;
  /** Where each overridden setting came from (headless env and flags). */
  overrideSources: Partial<Record<SettingKey, string>>;
}

/** One handler per contract command: the only place commands meet the services. */
export function createHandlers(s: CommandServices): Handlers {
  return {
    'app:info': () => ({
      ...s.appInfo,
      startedAt: new Date(s.startedAt).toISOString(),
      uptimeMs: Math.max(0, s.clock.now() - s.startedAt),
    }),
    'runner:status': () => s.runner.status(),
    'runner:snapshot': () => s.runner.snapshot(),
    'pairing:start': () => refusals(() => s.runner.startPairing()),
    'pairing:cancel': () => {
      s.runner.cancelPairing();
      return null;
    },
    'runner:import': ({ file }) => refusals(() => s.runner.importState(file)),
    'runner:unpair': async ({ force }) => {
      await refusals(() => s.runner.unpair(force));
      return null;
    },
    'runner:pause': ({ minutes }) => {
      s.runner.pause(minutes);
      return s.runner.snapshot();
    },
    'runner:resume': () => {
      s.runner.resumeWork();
      return s.runner.snapshot();
    },
    'runtimes:refresh': async () => {
      await s.runner.refreshRuntimes();
      const runtimes = s.runner.snapshot().runtimes;
      if (!runtimes) throw new CommandFailure('not_ready', 'Runtime detection has not finished yet.');
      return runtimes;
    },
    'telemetry:history': () => s.history.all(),
    'turns:list': () => s.registry.snapshot(),
    'turns:cancel': ({ id }) => {
      if (!s.work.cancel(id)) throw new CommandFailure('not_running', 'That turn is not running any more.');
      return null;
    },
    'settings:get': () => settingsView(s),
    'settings:update': (patch) => {
      const result = s.settings.update(patch);
      if (!result.ok) throw new CommandFailure(result.error.code, result.error.message, result.error.field ?? undefined);
      return settingsView(s);
    },
    'log:recent': (input) => s.logFeed.recent(input?.limit ?? 200),
  };
}

/** A refusal the operator should read becomes `{ ok: false }` with its code. */
async function refusals<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof CommandRefused) throw new CommandFailure(error.code, error.message);
    throw error;
  }
}

function settingsView(s: CommandServices): SettingsView {
  return {
    settings: s.settings.get(),
    overridden: s.settings.overriddenKeys().map((key) => ({ key, source: s.overrideSources[key] ?? 'command line' })),
    warnings: [...s.settings.warnings],
  };
}
