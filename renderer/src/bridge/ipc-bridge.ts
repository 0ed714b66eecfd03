import type { CommandName, HostEvent, RunnerTrayApi } from '../../../shared/contract';
import { EVENT_NAME_LIST } from '../../../shared/event-names';
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
      // Preload hands over one event per subscription; the events of one IPC message
      // arrive in the same task, so collecting them until a microtask later gives the
      // store the host's batch back, and a batch costs one update as over WebSocket.
      let pending: HostEvent[] = [];
      const flush = () => {
        const batch = pending;
        pending = [];
        if (batch.length > 0) listener(batch);
      };
      const unsubscribers = EVENT_NAME_LIST.map((event) =>
        api.subscribe(event, (payload) => {
          if (pending.length === 0) queueMicrotask(flush);
          pending.push({ event, payload } as HostEvent);
        }),
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
