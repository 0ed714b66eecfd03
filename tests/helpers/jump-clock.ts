import type { Clock, TimerHandle } from '../../main/core/base/ports';

interface Pending {
  fn: () => void;
  dueAt: number;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * The real clock, set forward once a test says so: time runs as the machine's does, and
 * `jumpTo` moves it to an instant (the evening before a local midnight) without waiting
 * for it. Pending timers keep the instant they fall due at, so those now past fire at once
 * and the rest are re-armed for what is left, as after a laptop wakes from sleep.
 */
export class JumpClock implements Clock {
  private offset = 0;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  now(): number {
    return Date.now() + this.offset;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.arm(id, fn, this.now() + Math.max(0, ms));
    return id as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    const id = handle as unknown as number;
    const entry = this.pending.get(id);
    if (entry) clearTimeout(entry.timer);
    this.pending.delete(id);
  }

  /** Moves time forward to `at` (never back). */
  jumpTo(at: number): void {
    if (at <= this.now()) throw new Error(`JumpClock moves forward only (to ${new Date(at).toISOString()})`);
    this.offset = at - Date.now();
    for (const [id, entry] of [...this.pending]) {
      clearTimeout(entry.timer);
      this.arm(id, entry.fn, entry.dueAt);
    }
  }

  private arm(id: number, fn: () => void, dueAt: number): void {
    const timer = setTimeout(
      () => {
        this.pending.delete(id);
        fn();
      },
      Math.max(0, dueAt - this.now()),
    );
    // As the system clock's: a pending timer never keeps the process alive.
    timer.unref();
    this.pending.set(id, { fn, dueAt, timer });
  }
}
