import type { AppInfo, SettingsView } from '../../shared/contract';
import type { LendingView } from '../../shared/lending';
import type { UpdateNotice } from '../../shared/updates';
import { DEFAULT_PROFILE_ID } from '../../shared/profiles';
import type { SettingKey } from '../../shared/settings';
import { PrUrlSchema } from '../../shared/delivery';
import { TURNS_PAGE_SIZE, type TurnView } from '../../shared/turns';
import type { PersistentSettingsStore } from './settings/settings-store';
import { CommandFailure, type Handlers } from './base/dispatch';
import type { Clock, DesktopPort, LogFeed } from './base/ports';
import { createOperatorHandlers, type OperatorService } from './operator';
import type { CapacityHistory } from './runner/telemetry';
import type { UsageService } from './usage/usage-service';
import type { TurnRegistry } from './work/turn-registry';
import type { SessionRegistry } from './sessions/session-registry';
import { requireCapability } from './sessions/session';
import type { QuitPolicy } from './quit-policy';
import { createSechroomProfileHandlers } from './planes/sechroom/sechroom-commands';
import { wideningOf, type WideningGate } from './settings/widening';

export interface CommandServices {
  appInfo: Omit<AppInfo, 'uptimeMs' | 'startedAt'>;
  startedAt: number;
  clock: Clock;
  profiles: SessionRegistry;
  history: CapacityHistory;
  logFeed: LogFeed;
  registry: TurnRegistry;
  desktop: DesktopPort | null;
  /** Where each overridden setting of a profile came from (headless env, flags, the profiles file). */
  overrideSources(profile: string): Partial<Record<SettingKey, string>>;
  operator: OperatorService;
  quit: QuitPolicy;
  usage: UsageService;
  /** "Check again": detect the runtimes anew (machine-wide) and let every profile look. */
  refreshRuntimes(): Promise<void>;
  /** Only the window may widen what a turn can reach (settings/widening.ts). */
  widening: WideningGate;
  /** The lending terms now (which hold new work back, and until when). */
  lending: { view(): LendingView };
  /** The newer version an update check found, if any. */
  update(): UpdateNotice | null;
  /** The redacted diagnostics zip (diagnostics/). */
  diagnostics(): Promise<{ fileName: string; zip: Uint8Array }>;
}

/** Handlers of the commands whose names start with `P`. */
type HandlersOf<P extends string> = Pick<Handlers, Extract<keyof Handlers, `${P}${string}`>>;

/** One handler per contract command: the only place commands meet the services. */
export function createHandlers(s: CommandServices): Handlers {
  return {
    ...appHandlers(s),
    ...sessionHandlers(s),
    ...recordHandlers(s),
    ...createOperatorHandlers(s.operator),
    ...createSechroomProfileHandlers(s.profiles, s.widening),
  };
}

/** The app's own commands: its facts, and opening addresses and the logs folder on the desktop. */
function appHandlers(s: CommandServices): HandlersOf<'app:'> {
  return {
    'app:info': () => ({
      ...s.appInfo,
      startedAt: new Date(s.startedAt).toISOString(),
      uptimeMs: Math.max(0, s.clock.now() - s.startedAt),
      update: s.update(),
    }),
    'app:open-external': async ({ url }) => {
      const desktop = requireDesktop(s);
      const turns = s.registry.overview();
      const pr = recordedPrUrl(url, [...turns.active, ...turns.history]);
      if (pr) {
        await desktop.openExternal(pr);
        return null;
      }
      const origins = s.profiles
        .sessions()
        // A Sechroom profile's control plane is its Work Layer (its sign-in page is there), not the settings' Rost URL.
        .flatMap((p) =>
          openableOrigins(
            p.identity?.controlPlaneUrl ?? null,
            p.profile.connector === 'sechroom' ? p.summary().controlPlaneUrl : s.profiles.settingsOf(p.profile.id).get().controlPlaneUrl,
          ),
        );
      await desktop.openExternal(controlPlaneAddress(url, origins));
      return null;
    },
    'app:open-logs': async () => {
      const problem = await requireDesktop(s).openPath(s.appInfo.logDir);
      if (problem) throw new CommandFailure('open_failed', `Could not open the logs folder: ${problem}`);
      return null;
    },
    // The desktop saves it where the operator says; a browser gets the bytes to download.
    'app:diagnostics': async () => {
      const { fileName, zip } = await s.diagnostics();
      if (!s.desktop) return { fileName, zipBase64: Buffer.from(zip).toString('base64'), savedTo: null };
      return { fileName, zipBase64: null, savedTo: await s.desktop.saveFile(fileName, zip) };
    },
  };
}

/** The profiles and their sessions: status, pairing, pause, the profile list, quitting, the runtimes. */
function sessionHandlers(s: CommandServices): HandlersOf<'runner:' | 'pairing:' | 'profiles:' | 'runtimes:'> {
  const session = (profile: string) => s.profiles.get(profile);
  const pairing = (profile: string) => requireCapability(session(profile), 'pairing');
  return {
    'runner:status': ({ profile }) => session(profile).status(),
    'runner:snapshot': ({ profile }) => session(profile).snapshot(),
    'pairing:start': ({ profile }) => pairing(profile).start(),
    'pairing:start-with-code': ({ code, profile }) => pairing(profile).start({ userCode: code }),
    // A pairing's start makes a waiting try at once instead of starting over.
    'pairing:retry-now': ({ profile }) => {
      const state = session(profile).snapshot().pairing;
      if (state?.phase !== 'retrying' && !(state?.phase === 'waiting' && state.trouble)) {
        throw new CommandFailure('nothing_to_retry', 'Nothing is waiting to be tried again.');
      }
      return pairing(profile).start();
    },
    'pairing:cancel': ({ profile }) => {
      pairing(profile).cancel();
      return null;
    },
    'runner:import': ({ file, profile }) => requireCapability(session(profile), 'stateImport').importState(file),
    'runner:unpair': async ({ force, profile }) => {
      await pairing(profile).unpair(force);
      return null;
    },
    'runner:pause': async ({ minutes, note, profile }) => {
      await session(profile).pause(minutes, note ?? null);
      return session(profile).snapshot();
    },
    'runner:resume': async ({ profile }) => {
      await session(profile).resume();
      return session(profile).snapshot();
    },
    'runner:pause-all': ({ minutes, note }) => s.profiles.pauseAll(minutes, note ?? null),
    'runner:resume-all': () => s.profiles.resumeAll(),
    'profiles:list': () => s.profiles.list(),
    'profiles:add': (input) => s.profiles.add(input),
    'profiles:rename': ({ profile, name }) => s.profiles.rename(profile, name),
    'profiles:remove': async ({ profile }) => {
      await s.profiles.remove(profile);
      return null;
    },
    'runner:quit': ({ mode }) => {
      if (mode === 'cancel') {
        if (!s.quit.cancel()) throw new CommandFailure('not_quitting', 'There is no quit waiting for running turns to call off.');
      } else {
        // Answered before the core stops; the shells exit when the quit completes (Core.onQuit).
        void s.quit.quit(mode);
      }
      return s.profiles.status();
    },
    'runtimes:refresh': async () => {
      await s.refreshRuntimes();
      // Every session shares the one detector: the first open one's view is the host's.
      const runtimes = s.profiles.sessions()[0]?.snapshot().runtimes;
      if (!runtimes) throw new CommandFailure('not_ready', 'Runtime detection has not finished yet.');
      return runtimes;
    },
  };
}

/** What the app has recorded and keeps: capacity history, turns, settings, the log and the usage accounts. */
function recordHandlers(s: CommandServices): HandlersOf<'telemetry:' | 'turns:' | 'settings:' | 'log:' | 'usage:' | 'lending:'> {
  return {
    'telemetry:history': () => s.history.all(),
    'turns:list': async (input) => {
      await s.registry.historyLoaded();
      return s.registry.page(input?.offset ?? 0, input?.limit ?? TURNS_PAGE_SIZE);
    },
    'turns:detail': async ({ id }) => (await s.registry.detail(id)) ?? null,
    'turns:transcript': async ({ id }) => (await s.registry.transcripts?.view(id)) ?? null,
    'turns:cancel': ({ id }) => {
      if (!s.profiles.cancelTurn(id)) throw new CommandFailure('not_running', 'That turn is not running any more.');
      return null;
    },
    'settings:get': ({ profile }) => settingsView(profile, s.profiles.settingsOf(profile), s.overrideSources(profile)),
    'settings:update': ({ profile = DEFAULT_PROFILE_ID, confirmWidening, ...patch }, caller) => {
      const settings = s.profiles.settingsOf(profile);
      s.widening.admit(wideningOf(settings.get(), patch), caller, confirmWidening, profile);
      const result = settings.update(patch);
      if (!result.ok) throw new CommandFailure(result.error.code, result.error.message, result.error.field ?? undefined);
      return settingsView(profile, settings, s.overrideSources(profile));
    },
    'settings:widening-challenge': (_input, caller) => s.widening.challenge(caller),
    'log:recent': (input) => s.logFeed.recent(input?.limit ?? 200),
    'usage:get': () => s.usage.snapshot(),
    'lending:get': () => s.lending.view(),
  };
}

/** What settings:get answers and settings:changed carries: a profile's effective settings. */
export function settingsView(profile: string, settings: PersistentSettingsStore, overrideSources: Partial<Record<SettingKey, string>>): SettingsView {
  return {
    profile,
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

/** A pull request a task's git delivery recorded, exactly (not any address on its host); null otherwise. */
export function recordedPrUrl(url: string, turns: readonly Pick<TurnView, 'git'>[]): string | null {
  if (!PrUrlSchema.safeParse(url).success) return null;
  return turns.some((t) => t.git?.prUrl === url) ? url : null;
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
