import type { DispatchOffer } from '../../../shared/protocol/sechroom';
import type { EventLog } from '../../events';

interface Waiter {
  instanceId: string;
  timer: NodeJS.Timeout;
  resolve: (offers: DispatchOffer[]) => void;
}

/** Events after which an instance may have something new to claim. */
const WAKE_ON = new Set([
  'sechroom.task.offered',
  'sechroom.brief.status',
  'sechroom.decomposition.status',
  'sechroom.instance.refreshed',
  'sechroom.instance.registered',
]);

/**
 * Held `dispatch-offers?waitMs=` reads [v1]: answered as soon as the instance has an offer,
 * re-checked on the events that can create one (no polling), or `[]` when the wait runs out.
 */
export class OfferWaiters {
  private readonly waiters = new Set<Waiter>();
  private scheduled = false;

  constructor(
    events: EventLog,
    private readonly offersFor: (instanceId: string) => DispatchOffer[],
  ) {
    events.subscribe((event) => {
      if (WAKE_ON.has(event.type)) this.notify();
    });
  }

  wait(instanceId: string, waitMs: number, signal: AbortSignal): Promise<DispatchOffer[]> {
    if (signal.aborted) return Promise.resolve([]);
    return new Promise((resolve) => {
      const waiter: Waiter = { instanceId, resolve, timer: setTimeout(() => this.finish(waiter, []), waitMs) };
      signal.addEventListener('abort', () => this.finish(waiter, []), { once: true });
      this.waiters.add(waiter);
    });
  }

  get size(): number {
    return this.waiters.size;
  }

  releaseAll(): void {
    for (const waiter of [...this.waiters]) this.finish(waiter, []);
  }

  private notify(): void {
    if (this.scheduled || !this.waiters.size) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      for (const waiter of [...this.waiters]) {
        const offers = this.offersFor(waiter.instanceId);
        if (offers.length) this.finish(waiter, offers);
      }
    });
  }

  private finish(waiter: Waiter, offers: DispatchOffer[]): void {
    if (!this.waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    waiter.resolve(offers);
  }
}
