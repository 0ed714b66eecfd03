import { create } from 'zustand';
import type { AppInfo, HostEvent, LogEntry, SettingsView } from '../../../shared/contract';
import { DEFAULT_PROFILE_ID } from '../../../shared/profiles';
import type { UsageSnapshot } from '../../../shared/usage';
import type { ConnectionState } from '../bridge';
import { mergeLogs } from './logs-slice';
import { initialRunner, withSnapshot, withStatus, type RunnerSlice } from './runner-slice';
import { sameJson } from './same';
import { addSample, initialTelemetry, type TelemetrySlice } from './telemetry-slice';
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
  runner: RunnerSlice;
  turns: TurnsSlice;
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
  runner: initialRunner,
  turns: initialTurns,
  telemetry: initialTelemetry,
  logs: [],
  settings: null,
  usage: null,
  lastError: null,
};

export const useHostStore = create<HostState>(() => initialHostState);

/** The state after one batch of events; the same object when nothing changed. */
export function reduceEvents(state: HostState, events: HostEvent[]): HostState {
  let { runner, turns, telemetry, logs, settings, usage } = state;
  for (const e of events) {
    switch (e.event) {
      // The window shows the default profile until it has a profile switcher.
      case 'runner:status':
        if ((e.payload.profile ?? DEFAULT_PROFILE_ID) === DEFAULT_PROFILE_ID) runner = withStatus(runner, e.payload);
        break;
      case 'runner:snapshot':
        if ((e.payload.profile ?? DEFAULT_PROFILE_ID) === DEFAULT_PROFILE_ID) runner = withSnapshot(runner, e.payload);
        break;
      case 'turns:update':
        turns = applyTurnsUpdate(turns, e.payload);
        break;
      case 'telemetry:sample':
        telemetry = addSample(telemetry, e.payload);
        break;
      case 'log:entries':
        logs = mergeLogs(logs, e.payload);
        break;
      case 'settings:changed':
        if ((e.payload.profile ?? DEFAULT_PROFILE_ID) === DEFAULT_PROFILE_ID && !sameJson(settings, e.payload)) settings = e.payload;
        break;
      case 'usage:update':
        if (!sameJson(usage, e.payload)) usage = e.payload;
        break;
      default:
        // Events of other surfaces (the operator contract) have their own stores.
        break;
    }
  }
  if (
    runner === state.runner &&
    turns === state.turns &&
    telemetry === state.telemetry &&
    logs === state.logs &&
    settings === state.settings &&
    usage === state.usage
  ) {
    return state;
  }
  return { ...state, runner, turns, telemetry, logs, settings, usage };
}

/** Applies one batch in a single store update, so a batch costs at most one render. */
export function applyEvents(events: HostEvent[]): void {
  useHostStore.setState((state) => reduceEvents(state, events), true);
}
