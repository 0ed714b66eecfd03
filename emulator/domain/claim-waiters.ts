import type { CancelNotice } from '../../shared/protocol';
import type { ClaimedPayload } from './scheduler';

/** What a held claim is answered with: a unit, the cancels it asked to hear of [v1], or neither (the wait ran out). */
export interface HeldAnswer {
  payload: ClaimedPayload | null;
  cancels: CancelNotice[];
}

/** How a claim is held: `notices` answers it early with a cancel [v1]; `noticesOnly` takes no unit at all [v1]. */
export interface HoldOptions {
  runtimes?: readonly string[] | null;
  notices?: boolean;
  noticesOnly?: boolean;
  /** The units whose cancel the runner is acting on already. */
  canceling?: readonly string[];
}

interface Waiter {
  runnerId: string;
  interactiveOnly: boolean;
  runtimes: readonly string[] | null;
  notices: boolean;
  noticesOnly: boolean;
  canceling: readonly string[];
  signal: AbortSignal;
  timer: NodeJS.Timeout;
  resolve: (answer: HeldAnswer) => void;
}

const NOTHING: HeldAnswer = { payload: null, cancels: [] };

/**
 * Held (long-poll) claims. Anything that may make work assignable (or cancel a running
 * unit) calls `notify()`; the waiters then re-try in arrival order on the next microtask,
 * so an enqueue answers a held claim without any polling.
 */
export class ClaimWaiters {
  private waiters: Waiter[] = [];
  private scheduled = false;

  constructor(
    private readonly tryClaim: (runnerId: string, interactiveOnly: boolean, runtimes: readonly string[] | null) => ClaimedPayload | null,
    /** false once the runner's secret is revoked: its held claims end at once (and are answered 401). */
    private readonly mayHold: (runnerId: string) => boolean = () => true,
    /** [v1] The cancels to tell this runner, but those it is acting on already. */
    private readonly takeCancels: (runnerId: string, canceling: readonly string[]) => CancelNotice[] = () => [],
  ) {}

  wait(runnerId: string, interactiveOnly: boolean, waitMs: number, signal: AbortSignal, options: HoldOptions = {}): Promise<HeldAnswer> {
    if (signal.aborted) return Promise.resolve(NOTHING);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        runnerId,
        interactiveOnly,
        runtimes: options.runtimes ?? null,
        notices: options.notices === true || options.noticesOnly === true,
        noticesOnly: options.noticesOnly === true,
        canceling: options.canceling ?? [],
        signal,
        resolve,
        timer: setTimeout(() => this.finish(waiter, NOTHING), waitMs),
      };
      signal.addEventListener('abort', () => this.finish(waiter, NOTHING), { once: true });
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
    for (const waiter of [...this.waiters]) this.finish(waiter, NOTHING);
  }

  private drain(): void {
    for (const waiter of [...this.waiters]) {
      if (!this.waiters.includes(waiter)) continue;
      if (waiter.signal.aborted || !this.mayHold(waiter.runnerId)) {
        this.finish(waiter, NOTHING);
        continue;
      }
      const cancels = waiter.notices ? this.takeCancels(waiter.runnerId, waiter.canceling) : [];
      if (cancels.length > 0) {
        this.finish(waiter, { payload: null, cancels });
        continue;
      }
      const payload = waiter.noticesOnly ? null : this.tryClaim(waiter.runnerId, waiter.interactiveOnly, waiter.runtimes);
      if (payload) this.finish(waiter, { payload, cancels: [] });
    }
  }

  private finish(waiter: Waiter, answer: HeldAnswer): void {
    const index = this.waiters.indexOf(waiter);
    if (index === -1) return;
    this.waiters.splice(index, 1);
    clearTimeout(waiter.timer);
    waiter.resolve(answer);
  }
}
