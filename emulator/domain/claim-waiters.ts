import type { ClaimedPayload } from './scheduler';

interface Waiter {
  runnerId: string;
  interactiveOnly: boolean;
  runtimes: readonly string[] | null;
  signal: AbortSignal;
  timer: NodeJS.Timeout;
  resolve: (payload: ClaimedPayload | null) => void;
}

/**
 * Held (long-poll) claims. Anything that may make work assignable calls
 * `notify()`; the waiters then re-try in arrival order on the next microtask,
 * so an enqueue answers a held claim without any polling.
 */
export class ClaimWaiters {
  private waiters: Waiter[] = [];
  private scheduled = false;

  constructor(
    private readonly tryClaim: (runnerId: string, interactiveOnly: boolean, runtimes: readonly string[] | null) => ClaimedPayload | null,
    /** false once the runner's secret is revoked: its held claims end at once (and are answered 401). */
    private readonly mayHold: (runnerId: string) => boolean = () => true,
  ) {}

  wait(
    runnerId: string,
    interactiveOnly: boolean,
    waitMs: number,
    signal: AbortSignal,
    runtimes: readonly string[] | null = null,
  ): Promise<ClaimedPayload | null> {
    if (signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        runnerId,
        interactiveOnly,
        runtimes,
        signal,
        resolve,
        timer: setTimeout(() => this.finish(waiter, null), waitMs),
      };
      signal.addEventListener('abort', () => this.finish(waiter, null), { once: true });
      this.waiters.push(waiter);
    });
  }

  notify(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  get size(): number {
    return this.waiters.length;
  }

  /** Answers every held claim with "nothing" (server shutdown or reset). */
  releaseAll(): void {
    for (const waiter of [...this.waiters]) this.finish(waiter, null);
  }

  private drain(): void {
    for (const waiter of [...this.waiters]) {
      if (!this.waiters.includes(waiter)) continue;
      if (waiter.signal.aborted || !this.mayHold(waiter.runnerId)) {
        this.finish(waiter, null);
        continue;
      }
      const payload = this.tryClaim(waiter.runnerId, waiter.interactiveOnly, waiter.runtimes);
      if (payload) this.finish(waiter, payload);
    }
  }

  private finish(waiter: Waiter, payload: ClaimedPayload | null): void {
    const index = this.waiters.indexOf(waiter);
    if (index === -1) return;
    this.waiters.splice(index, 1);
    clearTimeout(waiter.timer);
    waiter.resolve(payload);
  }
}
