import type { SechroomLeaseNotices } from '../../../shared/protocol/sechroom';
import type { EmulatorContext } from '../../context';
import type { SechroomConfig } from '../config';
import type { LeaseRow } from './leases';

type Notice = SechroomLeaseNotices['cancels'][number];

interface Waiter {
  instanceId: string;
  canceling: readonly string[];
  timer: NodeJS.Timeout;
  resolve: (cancels: Notice[]) => void;
}

const WAKE_ON = new Set(['sechroom.lease.cancel_requested', 'sechroom.lease.canceled']);

/**
 * Held `lease-notices` reads [v1]: an instance's leases the Work Layer canceled while it holds
 * them, told as soon as it happens (re-checked on the cancel events, no polling). Stateless: a
 * lease the executor names in `canceling` is not told again; an answer lost on the way is.
 * A lease ended `canceled` counts for one lease TTL after its end (the executor may hold it so long).
 */
export class LeaseNoticeWaiters {
  private readonly waiters = new Set<Waiter>();
  private scheduled = false;

  constructor(
    private readonly ctx: EmulatorContext,
    private readonly config: SechroomConfig,
  ) {
    ctx.events.subscribe((event) => {
      if (WAKE_ON.has(event.type)) this.notify();
    });
  }

  /** The cancels to tell this instance now. */
  noticesFor(instanceId: string, canceling: readonly string[]): Notice[] {
    const since = this.ctx.now() - this.config.leaseTtlMs;
    const rows = this.ctx.db
      .prepare(
        `SELECT * FROM sr_leases WHERE instance_id = ?
         AND ((status = 'active' AND cancel_requested_at IS NOT NULL) OR (status = 'canceled' AND ended_at >= ?)) ORDER BY seq LIMIT 100`,
      )
      .all(instanceId, since) as LeaseRow[];
    return rows
      .filter((row) => !canceling.includes(row.id))
      .map((row) =>
        row.status === 'active'
          ? { leaseId: row.id, status: 'cancel_requested' as const, reason: row.cancel_reason }
          : { leaseId: row.id, status: 'canceled' as const, reason: row.end_reason },
      );
  }

  wait(instanceId: string, canceling: readonly string[], waitMs: number, signal: AbortSignal): Promise<Notice[]> {
    if (signal.aborted) return Promise.resolve([]);
    return new Promise((resolve) => {
      const waiter: Waiter = { instanceId, canceling, resolve, timer: setTimeout(() => this.finish(waiter, []), waitMs) };
      signal.addEventListener('abort', () => this.finish(waiter, []), { once: true });
      this.waiters.add(waiter);
    });
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
        const cancels = this.noticesFor(waiter.instanceId, waiter.canceling);
        if (cancels.length) this.finish(waiter, cancels);
      }
    });
  }

  private finish(waiter: Waiter, cancels: Notice[]): void {
    if (!this.waiters.delete(waiter)) return;
    clearTimeout(waiter.timer);
    waiter.resolve(cancels);
  }
}
