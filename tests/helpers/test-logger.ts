import type { LogEntry } from '../../shared/contract';
import type { LogFeed, Logger } from '../../main/core/base/ports';

/** An in-memory Logger + LogFeed for tests that assert on what was logged. */
export function testLogging(): { log: Logger; feed: LogFeed; entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const listeners = new Set<(e: LogEntry) => void>();
  const make = (component?: string): Logger => {
    const write = (level: LogEntry['level']) => (msg: string, data?: Record<string, unknown>) => {
      const entry: LogEntry = { seq: entries.length, time: new Date(0).toISOString(), level, msg, component, data };
      entries.push(entry);
      listeners.forEach((l) => l(entry));
    };
    return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), child: (c) => make(c) };
  };
  return {
    log: make(),
    entries,
    feed: {
      recent: (limit) => entries.slice(-limit),
      subscribe: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    },
  };
}
