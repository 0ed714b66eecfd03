import type { Result } from '../../../shared/result';
import type { Bridge } from '../bridge';
import { applyEvents, mergeLogs, useHostStore } from './index';
import { withSnapshot } from './runner-slice';
import { telemetryFromHistory } from './telemetry-slice';
import { turnsFromSnapshot } from './turns-slice';
import { freezeClocks } from '../views/use-now';

/** Connects the store to the host: a snapshot on every (re)connect, then events. */
export function syncStore(bridge: Bridge): () => void {
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

/** Everything the window shows, asked for at once; events keep it current afterwards. */
export async function loadSnapshot(bridge: Bridge): Promise<void> {
  const [info, snapshot, turns, telemetry, logs, settings, usage] = await Promise.all([
    bridge.invoke('app:info'),
    bridge.invoke('runner:snapshot'),
    bridge.invoke('turns:list'),
    bridge.invoke('telemetry:history'),
    bridge.invoke('log:recent', { limit: 200 }),
    bridge.invoke('settings:get'),
    bridge.invoke('usage:get'),
  ]);
  useHostStore.setState((state) => ({
    appInfo: info.ok ? info.value : state.appInfo,
    appInfoReceivedAt: info.ok ? Date.now() : state.appInfoReceivedAt,
    runner: snapshot.ok ? withSnapshot(state.runner, snapshot.value) : state.runner,
    turns: turns.ok ? turnsFromSnapshot(turns.value) : state.turns,
    telemetry: telemetry.ok ? telemetryFromHistory(telemetry.value) : state.telemetry,
    logs: logs.ok ? mergeLogs([], logs.value) : state.logs,
    settings: settings.ok ? settings.value : state.settings,
    usage: usage.ok ? usage.value : state.usage,
    lastError: firstError(info, snapshot, turns, telemetry, logs, settings, usage),
  }));
}

function firstError(...results: Result<unknown>[]): string | null {
  for (const result of results) if (!result.ok) return result.error.message;
  return null;
}
