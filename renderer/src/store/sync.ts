import type { Result } from '../../../shared/result';
import type { Bridge } from '../bridge';
import { applyEvents, mergeLogs, useHostStore } from './index';
import { initialRunner, withSnapshot } from './runner-slice';
import { effectiveProfile, rememberedProfile, rememberProfile } from './profiles-slice';
import { telemetryFromHistory } from './telemetry-slice';
import { appendHistoryPage, turnsFromPage } from './turns-slice';
import { FIRST_LOG_LIMIT } from '../../../shared/first-view';
import { TURNS_PAGE_MAX, TURNS_PAGE_SIZE } from '../../../shared/turns';
import { freezeClocks } from '../views/use-now';

/** Connects the store to the host: a snapshot on every (re)connect, then events. */
export function syncStore(bridge: Bridge): () => void {
  useHostStore.setState({ profile: rememberedProfile() });
  const offEvents = bridge.onEvents(applyEvents);
  const offConnection = bridge.onConnection((connection) => {
    const lostAt = connection.state === 'open' ? null : (useHostStore.getState().lostAt ?? (useHostStore.getState().appInfo ? Date.now() : null));
    freezeClocks(lostAt);
    useHostStore.setState({ connection, lostAt });
    if (connection.state === 'open') void loadSnapshot(bridge);
  });
  bridge.connect();
  return () => {
    offEvents();
    offConnection();
  };
}

/**
 * Everything the window shows, asked for at once; events keep it current afterwards.
 * The turns come on their own (the dashboard does not wait for the history's first page).
 * These are the asks of shared/first-view.ts, whose answers the headless host pushes.
 */
export async function loadSnapshot(bridge: Bridge): Promise<void> {
  const turns = loadTurns(bridge);
  const chosen = useHostStore.getState().profile;
  const [profiles, info, snapshot, telemetry, logs, settings, usage] = await Promise.all([
    bridge.invoke('profiles:list'),
    bridge.invoke('app:info'),
    bridge.invoke('runner:snapshot', { profile: chosen }),
    bridge.invoke('telemetry:history'),
    bridge.invoke('log:recent', { limit: FIRST_LOG_LIMIT }),
    bridge.invoke('settings:get', { profile: chosen }),
    bridge.invoke('usage:get'),
  ]);
  useHostStore.setState((state) => ({
    profiles: profiles.ok ? profiles.value : state.profiles,
    appInfo: info.ok ? info.value : state.appInfo,
    appInfoReceivedAt: info.ok ? Date.now() : state.appInfoReceivedAt,
    runner: snapshot.ok && state.profile === chosen ? withSnapshot(state.runner, snapshot.value) : state.runner,
    telemetry: telemetry.ok ? telemetryFromHistory(telemetry.value) : state.telemetry,
    logs: logs.ok ? mergeLogs([], logs.value) : state.logs,
    settings: settings.ok && state.profile === chosen ? settings.value : state.settings,
    usage: usage.ok ? usage.value : state.usage,
    lastError: firstError(profiles, info, snapshot, telemetry, logs, settings, usage) ?? state.lastError,
  }));
  // The profile this window showed last is gone (removed, or another host): show the first.
  const fallback = effectiveProfile(chosen, profiles.ok ? profiles.value : []);
  await Promise.all([turns, fallback !== chosen ? selectProfile(bridge, fallback) : null]);
}

/**
 * Shows another profile: what the window showed of the last one goes at once (never a
 * moment of one profile's state under another's name), then its snapshot and settings
 * arrive. The choice is remembered for the next window.
 */
export async function selectProfile(bridge: Bridge, id: string): Promise<void> {
  if (useHostStore.getState().profile === id) return;
  rememberProfile(id);
  useHostStore.setState({ profile: id, runner: initialRunner, settings: null });
  const [snapshot, settings] = await Promise.all([bridge.invoke('runner:snapshot', { profile: id }), bridge.invoke('settings:get', { profile: id })]);
  useHostStore.setState((state) =>
    state.profile !== id
      ? state
      : {
          runner: snapshot.ok ? withSnapshot(state.runner, snapshot.value) : state.runner,
          settings: settings.ok ? settings.value : state.settings,
          lastError: firstError(snapshot, settings) ?? state.lastError,
        },
  );
}

/** The running turns and the history's first page. */
async function loadTurns(bridge: Bridge): Promise<void> {
  const turns = await bridge.invoke('turns:list', { limit: TURNS_PAGE_SIZE });
  useHostStore.setState((state) => (turns.ok ? { turns: turnsFromPage(turns.value) } : { lastError: state.lastError ?? turns.error.message }));
}

let fetchingFrom: number | null = null;

/**
 * The next window of history rows after those held, one at a time (the list calls this
 * as its end scrolls into view, with the last row it shows: a jump far down asks for
 * larger windows, up to TURNS_PAGE_MAX). Rows that finish meanwhile arrive by `turns:update`.
 */
export async function loadMoreHistory(bridge: Bridge, upTo = 0): Promise<void> {
  const { history, historyTotal, loaded } = useHostStore.getState().turns;
  if (!loaded || history.length >= historyTotal || fetchingFrom !== null) return;
  const offset = history.length;
  const limit = Math.min(TURNS_PAGE_MAX, Math.max(TURNS_PAGE_SIZE, upTo + 1 - offset));
  fetchingFrom = offset;
  try {
    const page = await bridge.invoke('turns:list', { offset, limit });
    if (page.ok) useHostStore.setState((state) => ({ turns: appendHistoryPage(state.turns, page.value) }));
  } finally {
    fetchingFrom = null;
  }
}

function firstError(...results: Result<unknown>[]): string | null {
  for (const result of results) if (!result.ok) return result.error.message;
  return null;
}
