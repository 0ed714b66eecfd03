import type { Db } from './db/database';
import { parseJson } from './db/database';

export interface EmulatorEvent {
  seq: number;
  at: string;
  type: string;
  data: Record<string, unknown>;
}

type Listener = (event: EmulatorEvent) => void;

/**
 * Append-only log of what happened, for the admin API and for tests that wait on
 * an event instead of sleeping. Callers must never put a secret in `data`.
 */
export class EventLog {
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
  ) {}

  emit(type: string, data: Record<string, unknown> = {}): EmulatorEvent {
    const at = this.now();
    const info = this.db.prepare('INSERT INTO events (at, type, data) VALUES (?, ?, ?)').run(at, type, JSON.stringify(data));
    const event: EmulatorEvent = { seq: Number(info.lastInsertRowid), at: new Date(at).toISOString(), type, data };
    for (const listener of [...this.listeners]) listener(event);
    return event;
  }

  list(filter: { since?: number; type?: string; limit?: number } = {}): EmulatorEvent[] {
    const rows = this.db
      .prepare(
        `SELECT seq, at, type, data FROM events WHERE seq > ? AND (? IS NULL OR type = ? OR type LIKE ? || '.%')
         ORDER BY seq LIMIT ?`,
      )
      .all(filter.since ?? 0, filter.type ?? null, filter.type ?? null, filter.type ?? null, filter.limit ?? 1000) as Array<{
      seq: number;
      at: number;
      type: string;
      data: string;
    }>;
    return rows.map((r) => ({ seq: r.seq, at: new Date(r.at).toISOString(), type: r.type, data: parseJson(r.data, {}) }));
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first event (already logged since `since`, or future) matching the predicate. */
  waitFor(match: (e: EmulatorEvent) => boolean, opts: { timeoutMs?: number; since?: number } = {}): Promise<EmulatorEvent> {
    const past = opts.since !== undefined ? this.list({ since: opts.since, limit: 100_000 }).find(match) : undefined;
    if (past) return Promise.resolve(past);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`no matching emulator event within ${opts.timeoutMs ?? 5000} ms`));
      }, opts.timeoutMs ?? 5000);
      const unsubscribe = this.subscribe((event) => {
        if (!match(event)) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(event);
      });
    });
  }

  clearListeners(): void {
    this.listeners.clear();
  }
}
