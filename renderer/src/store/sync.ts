import type { Result } from '../../../shared/result';
import type { Bridge } from '../bridge';
import { applyEvents, mergeLogs, useHostStore } from './index';

/** Connects the store to the host: a snapshot on every (re)connect, then events. */
export function syncStore(bridge: Bridge): () => void {
  const offEvents = bridge.onEvents(applyEvents);
  const offConnection = bridge.onConnection((connection) => {
    useHostStore.setState({ connection });
    if (connection.state === 'open') void loadSnapshot(bridge);
  });
  bridge.connect();
  return () => {
    offEvents();
    offConnection();
  };
}

async function loadSnapshot(bridge: Bridge): Promise<void> {
  const [info, status, logs] = await Promise.all([
    bridge.invoke('app:info'),
    bridge.invoke('runner:status'),
    bridge.invoke('log:recent', { limit: 200 }),
  ]);
  useHostStore.setState((state) => ({
    appInfo: info.ok ? info.value : state.appInfo,
    appInfoReceivedAt: info.ok ? Date.now() : state.appInfoReceivedAt,
    runner: status.ok ? status.value : state.runner,
    logs: logs.ok ? mergeLogs([], logs.value) : state.logs,
    lastError: firstError(info, status, logs),
  }));
}

function firstError(...results: Result<unknown>[]): string | null {
  for (const result of results) if (!result.ok) return result.error.message;
  return null;
}
