import { EVENT_NAMES, type CommandName, type HostEvent, type RunnerTrayApi } from '../../../shared/contract';
import type { Bridge, ConnectionState } from './types';

/** Electron: the preload's `window.runnerTray`, one method per contract command. */
export function createIpcBridge(api: RunnerTrayApi): Bridge {
  const connectionListeners = new Set<(state: ConnectionState) => void>();
  return {
    transport: 'ipc',
    invoke(name, input) {
      const method = api[name as CommandName] as (input?: unknown) => Promise<never>;
      return method(input);
    },
    onEvents(listener) {
      const unsubscribers = EVENT_NAMES.map((event) =>
        api.subscribe(event, (payload) => listener([{ event, payload } as HostEvent])),
      );
      return () => unsubscribers.forEach((off) => off());
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      return () => connectionListeners.delete(listener);
    },
    connect() {
      // IPC is up as long as the window exists.
      for (const listener of connectionListeners) listener({ state: 'open' });
    },
  };
}
