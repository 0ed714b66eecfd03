import type { RuntimeId } from '../../../shared/runtimes';
import { runtimeLabel } from '../../../shared/runtimes';
import type { TrippedRuntimes } from './capabilities';

export interface BreakerOptions {
  /** This many quick failures in a row, for the same reason, trip the breaker (default 3). */
  failures?: number;
  /** A failure counts when the turn ended within this long of starting, and the run of them spans no more (default 60 s). */
  windowMs?: number;
}

interface QuickFailure {
  at: number;
  reason: string;
}

/**
 * The circuit breaker per runtime: when turns keep failing within seconds of starting
 * for the same reason (a missing login, a broken install, a model that refuses the
 * account), claiming for that runtime pauses, with the reason, instead of draining
 * the queue (before it, 38 units failed in 30 s). A success, a fresh runtime check or
 * a resume closes it again.
 */
export class RuntimeBreaker {
  private readonly recent = new Map<RuntimeId, QuickFailure[]>();
  private tripped: TrippedRuntimes = {};
  private readonly failures: number;
  private readonly windowMs: number;

  constructor(options: BreakerOptions = {}) {
    this.failures = options.failures ?? 3;
    this.windowMs = options.windowMs ?? 60_000;
  }

  get state(): TrippedRuntimes {
    return this.tripped;
  }

  /**
   * A turn ended. Returns the trip reason when this one tripped the breaker (once).
   * `reason` is the turn's one-line failure reason; cancels and timeouts are not recorded.
   */
  record(runtime: RuntimeId, turn: { startedAt: number; endedAt: number; failed: boolean; reason: string | null }): string | null {
    if (!turn.failed) {
      this.recent.delete(runtime);
      return null;
    }
    if (turn.endedAt - turn.startedAt > this.windowMs || this.tripped[runtime]) return null;
    const reason = normalize(turn.reason ?? 'failed');
    const runs = (this.recent.get(runtime) ?? []).filter((f) => f.reason === reason && turn.endedAt - f.at <= this.windowMs);
    runs.push({ at: turn.endedAt, reason });
    this.recent.set(runtime, runs);
    if (runs.length < this.failures) return null;
    const why = `claiming paused after ${runs.length} turns failed within a minute of starting (${(turn.reason ?? 'failed').slice(0, 160)}). Fix it, then check the runtimes again or resume.`;
    this.tripped = { ...this.tripped, [runtime]: why };
    this.recent.delete(runtime);
    return `${runtimeLabel(runtime)}: ${why}`;
  }

  /** Closes the breaker (all runtimes, or one). */
  reset(runtime?: RuntimeId): boolean {
    const had = runtime ? Boolean(this.tripped[runtime]) : Object.keys(this.tripped).length > 0;
    if (runtime) {
      const { [runtime]: _closed, ...rest } = this.tripped;
      this.tripped = rest;
      this.recent.delete(runtime);
    } else {
      this.tripped = {};
      this.recent.clear();
    }
    return had;
  }
}

/** "exit 3 after 12 ms" and "exit 3 after 9 ms" are the same reason. */
function normalize(reason: string): string {
  return reason
    .replace(/\d+(\.\d+)?/g, '#')
    .trim()
    .toLowerCase();
}
