import { errorText } from '../../../../shared/errors';
import type { SechroomLeaseNotices } from '../../../../shared/protocol/sechroom';
import { backoffDelay } from '../../base/backoff';
import type { Clock, Logger } from '../../base/ports';
import { isConnectorError } from '../../connectors/errors';
import type { NoticeWatch } from './lease-keeper';
import { AuthExpiredError } from './sechroom-auth';

/** A held read that came back empty sooner than this was not held: the next one waits a backoff. */
const MIN_HELD_MS = 1_000;
const BACKOFF = { baseMs: 1_000, capMs: 30_000 };
/** The most lease ids one read names as heard. */
const MAX_CANCELING = 100;

export interface LeaseNoticeWatchDeps {
  read(opts: { waitMs: number; canceling: readonly string[]; signal: AbortSignal }): Promise<SechroomLeaseNotices>;
  /** How long the Work Layer is asked to hold each read (the offers read's hold). */
  waitMs: number;
  clock: Clock;
  log: Logger;
  random?: () => number;
  /** The cancel goes to the lease's keeper (its heartbeat's path); false for a lease not held. */
  notice(leaseId: string, status: 'cancel_requested' | 'canceled', reason: string | null): boolean;
}

/**
 * [v1] While the executor holds a lease (its one task runs, or its completion is on its way),
 * no offers read is held, so one `lease-notices` read is held instead, one after the other:
 * a cancel reaches the turn when the Work Layer asks, not at the next lease heartbeat (which
 * stays the fallback). Each read names the leases already heard of (`canceling`), so a cancel
 * is told again only when its answer was lost. A Work Layer without the read (404) is not
 * asked again by this session.
 */
export class LeaseNoticeWatch implements NoticeWatch {
  private active: AbortController | null = null;
  private unsupported = false;
  private readonly heard = new Set<string>();

  constructor(private readonly deps: LeaseNoticeWatchDeps) {}

  start(): void {
    if (this.active || this.unsupported) return;
    const active = new AbortController();
    this.active = active;
    void this.run(active.signal);
  }

  stop(): void {
    this.active?.abort();
    this.active = null;
    this.heard.clear();
  }

  private async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted) {
      const startedAt = this.deps.clock.now();
      try {
        const answer = await this.deps.read({ waitMs: this.deps.waitMs, canceling: [...this.heard].slice(-MAX_CANCELING), signal });
        if (signal.aborted) return;
        for (const cancel of answer.cancels) {
          this.heard.add(cancel.leaseId);
          this.deps.notice(cancel.leaseId, cancel.status, cancel.reason ?? null);
        }
        const held = answer.cancels.length > 0 || this.deps.clock.now() - startedAt >= MIN_HELD_MS;
        if (held) failures = 0;
        else await this.pause(backoffDelay(failures++, BACKOFF, this.deps.random), signal);
      } catch (error) {
        if (signal.aborted) return;
        if (isConnectorError(error, 'not_found')) {
          this.unsupported = true;
          this.deps.log.info('the Work Layer has no lease-notices read; a cancel comes with the lease heartbeat');
          return;
        }
        // A refused sign-in is the claim path's to say; the lease heartbeat goes on meanwhile.
        if (error instanceof AuthExpiredError) return;
        this.deps.log.warn(`the lease-notices read failed (${errorText(error)}); trying again after a pause`);
        await this.pause(backoffDelay(failures++, BACKOFF, this.deps.random), signal);
      }
    }
  }

  private pause(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.deps.clock.clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.deps.clock.setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
