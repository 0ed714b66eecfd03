/**
 * Capped exponential backoff with full jitter ("Exponential Backoff And Jitter", AWS
 * architecture blog): the delay for attempt n is uniform in [base/2, min(cap, base·2^n)],
 * so a fleet of runners that lost the control plane together does not return together.
 */
export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
}

export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt));
  const floor = Math.min(ceiling, policy.baseMs / 2);
  return Math.round(floor + random() * (ceiling - floor));
}

/** ±fraction jitter around a period, for steady loops such as heartbeats. */
export function jittered(periodMs: number, fraction: number, random: () => number = Math.random): number {
  return Math.round(periodMs * (1 - fraction + 2 * fraction * random()));
}
