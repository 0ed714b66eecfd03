import { bindingWindow, type Admission, type RateLimitReading, type SpendingCapView } from '../../../shared/usage';
import { capAdmission } from './spending-caps';

/**
 * Whether the runner may claim work for an account: the seed's `--usage-reserve` rule
 * (defer when the binding window's remaining percent is at or below the reserve) plus a
 * limit a failed turn reported. Unlike the seed, a deferral without a known reset time is
 * not forever: it carries a probe instant at which the account is checked again. A spending
 * cap reached (spending-caps.ts) defers until its window resets.
 */

/** The bounded re-check when no reset time is known: at most once per this period. */
export const PROBE_INTERVAL_MS = 15 * 60_000;

export interface AdmissionInput {
  windows: RateLimitReading;
  limited: { since: number; until: number | null; message: string } | null;
  /** The last probe of this account (epoch ms), or null. */
  probedAt: number | null;
  /** When the windows were reported (epoch ms), or null. */
  observedAt?: number | null;
}

function clock(at: number): string {
  return new Date(at).toISOString();
}

/** `caps`: the account's spending caps in their windows (capReadings). */
export function decideAdmission(account: AdmissionInput, reservePercent: number, now: number, caps: readonly SpendingCapView[] = []): Admission {
  const probeAt = (since: number) => Math.max(now, (account.probedAt ?? since) + PROBE_INTERVAL_MS);
  const limited = account.limited;
  if (limited && (limited.until === null || limited.until > now)) {
    return {
      state: 'deferred',
      reason: `usage limit reached (${limited.message})${limited.until !== null ? `; resets at ${clock(limited.until)}` : ''}`,
      remainingPercent: 0,
      resumesAt: limited.until,
      probeAt: limited.until === null ? probeAt(limited.since) : null,
    };
  }
  const capped = capAdmission(caps, now);
  if (capped) return capped;
  const binding = bindingWindow(account.windows, now);
  if (!binding || binding.remaining > reservePercent) return { state: 'claiming' };
  const resetsAt = binding.window.resetsAt;
  return {
    state: 'deferred',
    reason:
      `rate-limit remaining ${binding.remaining.toFixed(1)}% (${binding.name} window) is at or below the ${reservePercent}% reserve` +
      (resetsAt !== null ? `; resets at ${clock(resetsAt)}` : '; no reset time known, re-checking every 15 min'),
    remainingPercent: binding.remaining,
    resumesAt: resetsAt,
    probeAt: resetsAt === null ? probeAt(account.observedAt ?? now) : null,
  };
}
