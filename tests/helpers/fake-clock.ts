import type { Clock, TimerHandle } from '../../main/core/base/ports';

/** Captured at load, so a test that fakes the global timers still drains for real. */
const realSetImmediate = globalThis.setImmediate;

const MAX_SETTLE_ROUNDS = 1000;

/** Resolves after the current macrotask, by which time every queued microtask has run. */
function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => realSetImmediate(resolve));
}

interface Pending {
  id: number;
  at: number;
  fn: () => void;
}

/** A manual clock for the core's timers: time moves only when a test advances it. */
export class FakeClock implements Clock {
  private time: number;
  private nextId = 1;
  private pending: Pending[] = [];

  constructor(start = Date.parse('2026-12-01T12:00:00.000Z')) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.pending.push({ id, at: this.time + Math.max(0, ms), fn });
    return id as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending = this.pending.filter((p) => p.id !== (handle as unknown as number));
  }

  get timerCount(): number {
    return this.pending.length;
  }

  /** When the earliest pending timer falls due (null: none), so a test can move time exactly to it. */
  get nextDueAt(): number | null {
    return this.pending.reduce<number | null>((min, p) => (min === null || p.at < min ? p.at : min), null);
  }

  /** Moves time forward, running every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      this.pending.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.pending[0];
      if (!next || next.at > end) break;
      this.pending.shift();
      this.time = next.at;
      next.fn();
    }
    this.time = end;
  }

  /**
   * Advances timer by timer, letting the promise callbacks each one schedules run before
   * the next, so a chain of timers and awaits sees exact times. `step` caps how far time
   * jumps at once when no timer is due (for code that polls real I/O in between).
   */
  async advanceAsync(ms: number, step = ms): Promise<void> {
    const end = this.time + ms;
    await this.settle();
    while (this.time < end) {
      this.pending.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.pending[0];
      const target = Math.min(end, this.time + step, next && next.at <= end ? next.at : end);
      this.advance(target - this.time);
      await this.settle();
    }
  }

  /** True when some pending timer is due at the current time. */
  private get hasDue(): boolean {
    return this.pending.some((p) => p.at <= this.time);
  }

  /**
   * Drains what is due now: runs the due timers, then lets every queued promise callback
   * run (one macrotask turn empties the microtask queue), and repeats until a round leaves
   * no timer due. Throws if zero-delay timers keep re-arming, instead of hanging.
   */
  async settle(): Promise<void> {
    for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
      this.advance(0);
      await drainMicrotasks();
      if (!this.hasDue) return;
    }
    throw new Error(`FakeClock.settle: timers still due after ${MAX_SETTLE_ROUNDS} rounds`);
  }
}
