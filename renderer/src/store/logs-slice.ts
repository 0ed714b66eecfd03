import type { LogEntry } from '../../../shared/contract';

export const LOG_LIMIT = 500;

/** Appends entries newer than the last one held (by seq), keeping the last LOG_LIMIT. */
export function mergeLogs(current: LogEntry[], incoming: LogEntry[]): LogEntry[] {
  if (incoming.length === 0) return current;
  const lastSeq = current.at(-1)?.seq ?? -1;
  const fresh = incoming.filter((entry) => entry.seq > lastSeq);
  if (fresh.length === 0) return current;
  const merged = current.concat(fresh);
  return merged.length > LOG_LIMIT ? merged.slice(merged.length - LOG_LIMIT) : merged;
}
