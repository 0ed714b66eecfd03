import type { Clock } from '../../base/ports';

/**
 * How the executor loop waits: on its clock, cut short by `wake()` (pause, resume, a
 * delivery) and for good by `stop()`, which also aborts `signal` (a wait for a slot of the
 * machine ends with it).
 */
export class LoopSleep {
  private readonly sleepers = new Set<() => void>();
  private readonly stopped = new AbortController();

  constructor(
    private readonly clock: Clock,
    /** The loop is stopping (a stop, or a refused sign-in): no more sleeping. */
    private readonly stopping: () => boolean,
  ) {}

  get signal(): AbortSignal {
    return this.stopped.signal;
  }

  /** Something sleeps now (the loop is between requests). */
  get asleep(): boolean {
    return this.sleepers.size > 0;
  }

  sleep(ms: number): Promise<void> {
    if (this.stopping() || this.stopped.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.sleepers.delete(done);
        this.clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.clock.setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  wake(): void {
    for (const done of [...this.sleepers]) done();
  }

  stop(): void {
    this.stopped.abort();
    this.wake();
  }
}
