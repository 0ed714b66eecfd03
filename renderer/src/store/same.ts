/**
 * Structural sharing for objects that arrive whole from the host (a runner snapshot on
 * every heartbeat): parts that did not change keep their old identity, so components
 * that select them do not re-render. The objects are small JSON, so comparing their
 * JSON is cheap and exact.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** `next` with every top-level field that equals the one in `prev` replaced by prev's. */
export function share<T extends object>(prev: T | null, next: T): T {
  if (prev === null) return next;
  let changed = false;
  const out = { ...next } as Record<string, unknown>;
  for (const key of Object.keys(next)) {
    const before = (prev as Record<string, unknown>)[key];
    if (sameJson(before, out[key])) out[key] = before;
    else changed = true;
  }
  if (!changed && Object.keys(prev).length === Object.keys(next).length) return prev;
  return out as T;
}
