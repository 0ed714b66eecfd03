import type { AppInfo, SettingsView } from '../../shared/contract';
import { DEFAULT_PROFILE_ID, type ProfileSummary } from '../../shared/profiles';
import type { SettingKey } from '../../shared/settings';
import { TURNS_PAGE_SIZE } from '../../shared/turns';
import type { PersistentSettingsStore } from './settings/settings-store';
import { CommandFailure, type Handlers } from './dispatch';
import type { Clock, DesktopPort, LogFeed } from './ports';
import { createOperatorHandlers, type OperatorService } from './operator';
import type { Runner } from './runner/runner';
import type { CapacityHistory } from './runner/telemetry';
import type { UsageService } from './usage/usage-service';
import type { TurnRegistry } from './work/turn-registry';
import type { WorkManager } from './work/work-manager';
import type { QuitPolicy } from './quit-policy';

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
  desktop: DesktopPort | null;
  /** Where each overridden setting came from (headless env and flags). */
  overrideSources: Partial<Record<SettingKey, string>>;
  operator: OperatorService;
  quit: QuitPolicy;
  usage: UsageService;
}

/** One handler per contract command: the only place commands meet the services. */
export function createHandlers(s: CommandServices): Handlers {
  const runnerOf = (profile: string): Runner => {
    if (profile !== DEFAULT_PROFILE_ID) throw new CommandFailure('no_such_profile', `There is no profile "${profile}".`);
    return s.runner;
  };
  const summary = (): ProfileSummary => {
    const snapshot = s.runner.snapshot();
    return {
      id: DEFAULT_PROFILE_ID,
      name: 'Default',
      connector: 'rost',
      controlPlaneUrl: snapshot.identity?.controlPlane ?? s.settings.get().controlPlaneUrl,
      status: snapshot.status,
      runnerId: snapshot.identity?.runnerId ?? null,
      paused: snapshot.paused !== null,
      active: snapshot.sessions.active,
    };
  };
  return {
    'app:info': () => ({
      ...s.appInfo,
      startedAt: new Date(s.startedAt).toISOString(),
      uptimeMs: Math.max(0, s.clock.now() - s.startedAt),
    }),
    'app:open-external': async ({ url }) => {
      const desktop = requireDesktop(s);
      await desktop.openExternal(controlPlaneAddress(url, openableOrigins(s.runner.identity?.controlPlaneUrl ?? null, s.settings.get().controlPlaneUrl)));
      return null;
    },
    'app:open-logs': async () => {
      const problem = await requireDesktop(s).openPath(s.appInfo.logDir);
      if (problem) throw new CommandFailure('open_failed', `Could not open the logs folder: ${problem}`);
      return null;
    },
    'runner:status': ({ profile }) => runnerOf(profile).status(),
    'runner:snapshot': ({ profile }) => runnerOf(profile).snapshot(),
    'pairing:start': ({ profile }) => runnerOf(profile).startPairing(),
    'pairing:start-with-code': ({ code, profile }) => runnerOf(profile).startPairing({ userCode: code }),
    'pairing:cancel': ({ profile }) => {
      runnerOf(profile).cancelPairing();
      return null;
    },
    'runner:import': ({ file, profile }) => runnerOf(profile).importState(file),
    'runner:unpair': async ({ force, profile }) => {
      await runnerOf(profile).unpair(force);
      return null;
    },
    'runner:pause': async ({ minutes, note, profile }) => {
      await runnerOf(profile).pause(minutes, note ?? null);
      return runnerOf(profile).snapshot();
    },
    'runner:resume': async ({ profile }) => {
      await runnerOf(profile).resumeWork();
      return runnerOf(profile).snapshot();
    },
    'runner:pause-all': async ({ minutes, note }) => {
      await s.runner.pause(minutes, note ?? null);
      return [summary()];
    },
    'runner:resume-all': async () => {
      await s.runner.resumeWork();
      return [summary()];
    },
    'profiles:list': () => [summary()],
    'profiles:add': () => {
      throw new CommandFailure('unsupported', 'This host runs one profile.');
    },
    'profiles:rename': () => {
      throw new CommandFailure('unsupported', 'This host runs one profile.');
    },
    'profiles:remove': () => {
      throw new CommandFailure('unsupported', 'This host runs one profile.');
    },
    'runner:quit': ({ mode }) => {
      if (mode === 'cancel') {
        if (!s.quit.cancel()) throw new CommandFailure('not_quitting', 'There is no quit waiting for running turns to call off.');
      } else {
        // Answered before the core stops; the shells exit when the quit completes (Core.onQuit).
        void s.quit.quit(mode);
      }
      return s.runner.status();
    },
    'runtimes:refresh': async () => {
      await s.runner.refreshRuntimes();
      const runtimes = s.runner.snapshot().runtimes;
      if (!runtimes) throw new CommandFailure('not_ready', 'Runtime detection has not finished yet.');
      return runtimes;
    },
    'telemetry:history': () => s.history.all(),
    'turns:list': (input) => s.registry.page(input?.offset ?? 0, input?.limit ?? TURNS_PAGE_SIZE),
    'turns:detail': ({ id }) => s.registry.detail(id) ?? null,
    'turns:cancel': ({ id }) => {
      if (!s.work.cancel(id)) throw new CommandFailure('not_running', 'That turn is not running any more.');
      return null;
    },
    'settings:get': ({ profile }) => {
      runnerOf(profile);
      return settingsView(s.settings, s.overrideSources);
    },
    'settings:update': ({ profile, ...patch }) => {
      runnerOf(profile ?? DEFAULT_PROFILE_ID);
      const result = s.settings.update(patch);
      if (!result.ok) throw new CommandFailure(result.error.code, result.error.message, result.error.field ?? undefined);
      return settingsView(s.settings, s.overrideSources);
    },
    'log:recent': (input) => s.logFeed.recent(input?.limit ?? 200),
    'usage:get': () => s.usage.snapshot(),
    ...createOperatorHandlers(s.operator),
  };
}

/** What settings:get answers and settings:changed carries. */
export function settingsView(settings: PersistentSettingsStore, overrideSources: Partial<Record<SettingKey, string>>): SettingsView {
  return {
    settings: settings.get(),
    overridden: settings.overriddenKeys().map((key) => ({ key, source: overrideSources[key] ?? 'command line' })),
    warnings: [...settings.warnings],
  };
}

function requireDesktop(s: CommandServices): DesktopPort {
  if (!s.desktop) throw new CommandFailure('unsupported', 'Only the desktop app can open things on this machine; copy the address instead.');
  return s.desktop;
}

/** Only http(s) addresses on the control plane we talk to may be opened for the operator. */
/**
 * Whose addresses the window may open: the paired control plane only; while unpaired, the
 * one in the settings (where pairing and sign-in go). A settings URL changed after pairing
 * is not a way to make the app open another site.
 */
export function openableOrigins(pairedControlPlane: string | null, settingsControlPlane: string): string[] {
  return [pairedControlPlane ?? settingsControlPlane];
}

export function controlPlaneAddress(url: string, allowed: readonly (string | null | undefined)[]): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CommandFailure('invalid_input', 'That is not a web address.');
  }
  const origins = new Set(allowed.filter((a): a is string => Boolean(a)).map((a) => new URL(a).origin));
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || !origins.has(parsed.origin) || parsed.username || parsed.password) {
    throw new CommandFailure('refused', 'Only addresses on the control plane can be opened from here.');
  }
  return parsed.toString();
}
