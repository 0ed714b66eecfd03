/**
 * [v1] Cancel notices on Rost's held claims (docs/protocol.md §3): where the last heartbeat
 * offered `claim.cancel_notices`, a held claim asks for them, and while every slot is busy a
 * read for notices alone is held instead. Each notice goes to the launcher's plane-cancel
 * path, the one the lease heartbeat's `cancel_requested` takes.
 */
import type { CancelNotice } from '../../../../shared/protocol';
import type { Clock, Logger } from '../../base/ports';
import { isConnectorError } from '../../connectors/errors';
import { errorText } from '../../../../shared/errors';
import type { ClaimOptions, RunnerConnector, RunnerCredentials } from './connector';
import type { HeartbeatTracker } from './heartbeat-tracker';
import type { UnitLauncher } from './unit-launcher';

/** A held read that came back empty sooner than this was not held: treated as a failure, so it is not asked again at once. */
const MIN_HELD_MS = 1_000;

export interface CancelNoticeDeps {
  clock: Clock;
  log: Logger;
  heartbeat(): Pick<HeartbeatTracker, 'cancelNotices' | 'longPoll'>;
  launcher(): Pick<UnitLauncher, 'planeCancel' | 'holds'>;
  target(): { connector: RunnerConnector; credentials: RunnerCredentials } | null;
  revoked(): void;
}

export class CancelNoticeRoute {
  /** Units whose cancel was heard: each read says so (`canceling`), so the plane does not tell it again. */
  private readonly heard = new Set<string>();

  constructor(private readonly deps: CancelNoticeDeps) {}

  /** The notices field of a claim: only when offered, and only on a held claim. */
  onClaim(waitMs: number | undefined): ClaimOptions['notices'] {
    if (waitMs === undefined || !this.deps.heartbeat().cancelNotices) return undefined;
    return { only: false, canceling: this.canceling(), heard: (cancels) => void this.route(cancels) };
  }

  /** The heard cancels of units the launcher still holds (running, or their result on its way). */
  private canceling(): string[] {
    const launcher = this.deps.launcher();
    for (const id of [...this.heard]) if (!launcher.holds(id)) this.heard.delete(id);
    return [...this.heard];
  }

  /** One read held for notices alone (the claim loop asks while every slot is busy). */
  async watch(signal: AbortSignal): Promise<'ok' | 'failed' | 'unsupported'> {
    const heartbeat = this.deps.heartbeat();
    const target = this.deps.target();
    const waitMs = heartbeat.longPoll;
    if (!target || waitMs === null || !heartbeat.cancelNotices) return 'unsupported';
    let heard = 0;
    const startedAt = this.deps.clock.now();
    try {
      await target.connector.claim(target.credentials, {
        interactiveOnly: false,
        waitMs,
        signal,
        notices: { only: true, canceling: this.canceling(), heard: (cancels) => (heard += this.route(cancels)) },
      });
    } catch (error) {
      if (signal.aborted) return 'ok';
      if (isConnectorError(error, 'unauthorized')) {
        this.deps.revoked();
        return 'unsupported';
      }
      this.deps.log.warn('the read for cancel notices failed', { error: errorText(error) });
      return 'failed';
    }
    const quick = !signal.aborted && heard === 0 && this.deps.clock.now() - startedAt < MIN_HELD_MS;
    return quick ? 'failed' : 'ok';
  }

  private route(cancels: readonly CancelNotice[]): number {
    let routed = 0;
    for (const notice of cancels) {
      const reason = notice.reason?.slice(0, 200) ?? null;
      if (this.deps.launcher().planeCancel(notice.unit_id, reason)) {
        this.heard.add(notice.unit_id);
        routed++;
      } else this.deps.log.info('a cancel notice for a unit this runner does not run', { unit: notice.unit_id });
    }
    return routed;
  }
}
