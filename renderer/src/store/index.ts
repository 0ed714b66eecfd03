import { create } from 'zustand';
import type { AppInfo, HostEvent, LogEntry } from '../../../shared/contract';
import type { RunnerStatus } from '../../../shared/status';
import type { ConnectionState } from '../bridge';

/**
 * A projection of the host's state, fed only by the bridge (see sync.ts). The renderer
 * never computes runner truth on its own; it mirrors snapshots and applies events.
 */
export interface HostState {
  connection: ConnectionState;
  appInfo: AppInfo | null;
  /** Local clock reading when appInfo arrived, so uptime can tick between snapshots. */
  appInfoReceivedAt: number;
  runner: RunnerStatus | null;
  logs: LogEntry[];
  lastError: string | null;
}

export const LOG_LIMIT = 500;

export const useHostStore = create<HostState>(() => ({
  connection: { state: 'connecting' },
  appInfo: null,
  appInfoReceivedAt: 0,
  runner: null,
  logs: [],
  lastError: null,
}));

export function mergeLogs(current: LogEntry[], incoming: LogEntry[]): LogEntry[] {
  if (incoming.length === 0) return current;
  const lastSeq = current.at(-1)?.seq ?? -1;
  const fresh = incoming.filter((entry) => entry.seq > lastSeq);
  if (fresh.length === 0) return current;
  const merged = current.concat(fresh);
  return merged.length > LOG_LIMIT ? merged.slice(merged.length - LOG_LIMIT) : merged;
}

/** Applies one batch in a single store update, so a batch costs one render. */
export function applyEvents(events: HostEvent[]): void {
  useHostStore.setState((state) => {
    let { runner, logs } = state;
    for (const e of events) {
      if (e.event === 'runner:status') runner = e.payload;
      else if (e.event === 'log:entries') logs = mergeLogs(logs, e.payload);
    }
    return runner === state.runner && logs === state.logs ? state : { runner, logs };
  });
}
