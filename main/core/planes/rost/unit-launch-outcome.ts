/**
 * The outcome of a launched unit: what the outbox's word on its result means for the turn row (delivered,
 * refused, waiting; late when the lease was lost before the try went out), and what a finished turn says
 * about its runtime (a want of credentials marks it not signed in, quick failures feed the breaker).
 */
import type { Delivery } from '../../../../shared/turns';
import { isAuthFailure } from '../../runner/capabilities';
import type { DeliveryEvent } from './outbox';
import type { UnitLauncherDeps } from './unit-launcher-deps';

/** The turn row's delivery for an outbox event; `late`: the lease loss seen before the try was sent. */
export function deliveryOf(event: DeliveryEvent, late: string | null): Delivery {
  return event.state === 'delivered'
    ? {
        state: 'delivered',
        attempts: event.attempts,
        since: event.enqueuedAt,
        reason: late ? `late: the control plane had already ended the unit (${late})` : null,
        ...(late ? { late: true } : {}),
      }
    : event.state === 'refused'
      ? {
          state: 'refused',
          attempts: event.attempts,
          since: event.enqueuedAt,
          reason: late ? `${event.reason}; the control plane had already ended the unit (${late})` : event.reason,
        }
      : { state: 'waiting', attempts: event.attempts, since: event.enqueuedAt, reason: event.error };
}

/**
 * What a finished turn says about its runtime: a failure for want of credentials means
 * "not signed in" until the next check; quick failures for one reason feed the breaker.
 */
export function learnFromOutcome(
  deps: Pick<UnitLauncherDeps, 'capabilities' | 'breaker' | 'log' | 'clock' | 'host'>,
  outcome: { result: { status: string; runtime?: string | undefined }; view: { reason?: string | null; summary?: string | null; outputTail?: string } },
  startedAt: number,
): void {
  const runtime = outcome.result.runtime === 'claude-cli' ? 'claude' : outcome.result.runtime === 'codex-cli' ? 'codex' : null;
  if (!runtime) return;
  const failed = outcome.result.status === 'failed' && !(outcome.view.reason ?? '').startsWith('timed out after');
  let notice: string | null = null;
  let changed = false;
  if (failed && isAuthFailure(`${outcome.view.summary ?? ''}\n${outcome.view.outputTail ?? ''}`)) {
    const before = deps.capabilities.peek()?.[runtime].signedIn;
    deps.capabilities.markNotSignedIn(runtime, outcome.view.reason ?? 'authentication failed');
    changed = before !== false;
    if (changed) deps.log.warn('a turn failed for want of credentials; not claiming for this runtime until it is signed in', { runtime });
  }
  if (deps.breaker) {
    notice = deps.breaker.record(runtime, { startedAt, endedAt: deps.clock.now(), failed, reason: outcome.view.reason ?? null });
    if (notice) deps.log.warn('circuit breaker: claiming paused for a runtime', { runtime, reason: notice });
  }
  if (changed || notice) deps.host.readinessChanged(notice);
}
