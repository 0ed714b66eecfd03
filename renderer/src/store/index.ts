import { create } from 'zustand';
import type { AppInfo, HostEvent, LogEntry, SettingsView } from '../../../shared/contract';
import { DEFAULT_PROFILE_ID, type ProfileSummary } from '../../../shared/profiles';
import type { UsageSnapshot } from '../../../shared/usage';
import type { ConnectionState } from '../bridge';
import { mergeLogs } from './logs-slice';
import { initialRunner, withSnapshot, withStatus, type RunnerSlice } from './runner-slice';
import { sameJson } from './same';
import { addSample, initialTelemetry, type TelemetrySlice } from './telemetry-slice';
import { applyTranscriptUpdates, initialTranscripts, keepRunning, type TranscriptsSlice } from './transcripts-slice';
import { applyTurnsUpdate, initialTurns, type TurnsSlice } from './turns-slice';

export { mergeLogs } from './logs-slice';

/**
 * A projection of the host's state, fed only by the bridge (see sync.ts), one slice per
 * domain. The renderer never computes runner truth on its own: it mirrors snapshots and
 * applies events. Every slice keeps its old identity when an event changes nothing in
 * it, so a component re-renders only when what it selected really changed.
 */
export interface HostState {
  connection: ConnectionState;
  /** When the window lost a host it had data from (what it shows is from then); null while connected. */
  lostAt: number | null;
  appInfo: AppInfo | null;
  /** Local clock reading when appInfo arrived, so uptime can tick between snapshots. */
  appInfoReceivedAt: number;
  /** The profile this window shows (the switcher's choice); its runner, pairing and settings are below. */
  profile: string;
  /** Every profile of the host with its status, `default` first (profiles:list, then profiles:changed). */
  profiles: ProfileSummary[];
  runner: RunnerSlice;
  turns: TurnsSlice;
  /** The running turns' live transcripts (turns:transcript). */
  transcripts: TranscriptsSlice;
  telemetry: TelemetrySlice;
  logs: LogEntry[];
  settings: SettingsView | null;
  /** The lent model accounts: windows, tokens, admission (usage:get, then usage:update). */
  usage: UsageSnapshot | null;
  /** The first error of the last snapshot load, in one line. */
  lastError: string | null;
}

export const initialHostState: HostState = {
  connection: { state: 'connecting' },
  lostAt: null,
  appInfo: null,
  appInfoReceivedAt: 0,
  profile: DEFAULT_PROFILE_ID,
  profiles: [],
  runner: initialRunner,
  turns: initialTurns,
  transcripts: initialTranscripts,
  telemetry: initialTelemetry,
  logs: [],
  settings: null,
  usage: null,
  lastError: null,
};

export const useHostStore = create<HostState>(() => initialHostState);

/** The state after one batch of events; the same object when nothing changed. */
export function reduceEvents(state: HostState, events: HostEvent[]): HostState {
  let { runner, turns, transcripts, telemetry, logs, settings, usage, profiles, appInfo } = state;
  // Events name their profile (absent: a single-runner host's `default`); the window keeps the chosen one's.
  const ours = (profile: string | undefined) => (profile ?? DEFAULT_PROFILE_ID) === state.profile;
  for (const e of events) {
    switch (e.event) {
      case 'runner:status':
        if (ours(e.payload.profile)) runner = withStatus(runner, e.payload);
        break;
      case 'runner:snapshot':
        if (ours(e.payload.profile)) runner = withSnapshot(runner, e.payload);
        break;
      case 'profiles:changed':
        if (!sameJson(profiles, e.payload)) profiles = e.payload;
        break;
      case 'turns:update':
        turns = applyTurnsUpdate(turns, e.payload);
        transcripts = keepRunning(transcripts, [...e.payload.removed, ...e.payload.finished.map((t) => t.id)]);
        break;
      case 'turns:transcript': {
        // Only running turns': the last lines of one that just finished are read with its record.
        const running = e.payload.filter((u) => turns.active.some((t) => t.id === u.id));
        transcripts = applyTranscriptUpdates(transcripts, running);
        break;
      }
      case 'telemetry:sample':
        telemetry = addSample(telemetry, e.payload);
        break;
      case 'log:entries':
        logs = mergeLogs(logs, e.payload);
        break;
      case 'settings:changed':
        if (ours(e.payload.profile) && !sameJson(settings, e.payload)) settings = e.payload;
        break;
      case 'usage:update':
        if (!sameJson(usage, e.payload)) usage = e.payload;
        break;
      case 'app:update':
        if (appInfo) appInfo = { ...appInfo, update: e.payload };
        break;
      default:
        // Events of other surfaces (the operator contract) have their own stores.
        break;
    }
  }
  if (
    runner === state.runner &&
    turns === state.turns &&
    transcripts === state.transcripts &&
    telemetry === state.telemetry &&
    logs === state.logs &&
    settings === state.settings &&
    usage === state.usage &&
    profiles === state.profiles &&
    appInfo === state.appInfo
  ) {
    return state;
  }
  return { ...state, runner, turns, transcripts, telemetry, logs, settings, usage, profiles, appInfo };
}

/** Applies one batch in a single store update, so a batch costs at most one render. */
export function applyEvents(events: HostEvent[]): void {
  useHostStore.setState((state) => reduceEvents(state, events), true);
}
