import type { RateLimitReading, UsageWindow } from '../../../../shared/usage';
import type { RateLimitSnapshotWire, RateLimitWindowWire } from './protocol';

/** codex reports `resetsAt` in unix seconds; a value that large must already be milliseconds. */
function instant(value: number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return value > 1e12 ? Math.round(value) : Math.round(value * 1000);
}

function window(w: RateLimitWindowWire | null | undefined): UsageWindow | null {
  if (!w) return null;
  return { usedPercent: w.usedPercent, windowMinutes: w.windowDurationMins ?? null, resetsAt: instant(w.resetsAt) };
}

/** The windows of a rate-limit snapshot; null when it carries none (an API-key account). */
export function readingFromWire(snapshot: RateLimitSnapshotWire): RateLimitReading | null {
  const primary = window(snapshot.primary);
  const secondary = window(snapshot.secondary);
  return primary || secondary ? { primary, secondary } : null;
}
