import type { CancelNotice } from '../../shared/protocol';
import type { EmulatorContext } from '../context';

/**
 * [v1] Cancel notices on held claims: the cancels of a runner's running units it has not
 * said it is acting on (`canceling`). Stateless: an answer lost on the way is told again on
 * the next read; the lease heartbeat keeps saying `cancel_requested` as the fallback.
 */
export class CancelNotices {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly pending: (runnerId: string) => CancelNotice[],
  ) {}

  /** The cancels to tell this runner now. */
  take(runnerId: string, canceling: readonly string[]): CancelNotice[] {
    if (!this.ctx.config.claimCancelNotices) return [];
    const fresh = this.pending(runnerId).filter((notice) => !canceling.includes(notice.unit_id));
    for (const notice of fresh) this.ctx.events.emit('unit.cancel_noticed', { unit_id: notice.unit_id, runner_id: runnerId, reason: notice.reason ?? null });
    return fresh;
  }
}
