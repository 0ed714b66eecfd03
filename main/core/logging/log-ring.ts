import type { LogEntry } from '../../../shared/contract';
import type { LogFeed } from '../base/ports';

/** The last `capacity` log entries in memory, with listeners for new ones (the UI's feed). */
export class LogRing implements LogFeed {
  private readonly entries: LogEntry[] = [];
  private readonly listeners = new Set<(entry: LogEntry) => void>();

  constructor(private readonly capacity = 500) {}

  push(entry: LogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    for (const listener of [...this.listeners]) {
      try {
        listener(entry);
      } catch {
        // A failing listener must not lose the entry for the others, nor reach the caller that logged.
      }
    }
  }

  recent(limit: number = this.capacity): LogEntry[] {
    const n = Math.max(0, Math.min(Math.floor(limit), this.entries.length));
    return n === 0 ? [] : this.entries.slice(-n);
  }

  subscribe(listener: (entry: LogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  clearListeners(): void {
    this.listeners.clear();
  }
}
