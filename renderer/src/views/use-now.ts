import { useSyncExternalStore } from 'react';

/**
 * One shared clock per interval: every component that shows something ticking reads the
 * same timer, so eight elapsed-time cells cost one interval, and only they re-render.
 */
const clocks = new Map<number, { now: number; listeners: Set<() => void>; timer: ReturnType<typeof setInterval> | null }>();

function clockFor(intervalMs: number) {
  let clock = clocks.get(intervalMs);
  if (!clock) {
    clock = { now: Date.now(), listeners: new Set(), timer: null };
    clocks.set(intervalMs, clock);
  }
  return clock;
}

function subscribe(intervalMs: number, listener: () => void): () => void {
  const clock = clockFor(intervalMs);
  clock.listeners.add(listener);
  if (clock.timer === null) {
    clock.now = Date.now();
    clock.timer = setInterval(() => {
      clock.now = Date.now();
      clock.listeners.forEach((l) => l());
    }, intervalMs);
  }
  return () => {
    clock.listeners.delete(listener);
    if (clock.listeners.size === 0 && clock.timer !== null) {
      clearInterval(clock.timer);
      clock.timer = null;
    }
  };
}

/**
 * While the window has lost its host, what it shows is a picture of the moment the
 * connection went: clocks stop there (a "Running 3m 12s" must not keep counting for a
 * turn nobody can see any more). Live clocks (the reconnect countdown) ignore this.
 */
let frozenAt: number | null = null;

export function freezeClocks(at: number | null): void {
  if (frozenAt === at) return;
  frozenAt = at;
  for (const clock of clocks.values()) clock.listeners.forEach((l) => l());
}

// One subscribe function per interval, so React never sees a new one and resubscribes
// (a resubscription refreshes `now`, which would render again, and so on).
const subscribers = new Map<number, (listener: () => void) => () => void>();
const snapshots = new Map<number, () => number>();

const liveSnapshots = new Map<number, () => number>();

/**
 * The current time, updated every `intervalMs`; re-renders only the component using it.
 * Stopped at the moment the host was lost, unless `live` (see freezeClocks).
 */
export function useNow(intervalMs = 1000, live = false): number {
  let subscribeTo = subscribers.get(intervalMs);
  let snapshot = (live ? liveSnapshots : snapshots).get(intervalMs);
  if (!subscribeTo || !snapshot) {
    subscribeTo = (listener) => subscribe(intervalMs, listener);
    const liveNow = () => clockFor(intervalMs).now;
    const shown = () => frozenAt ?? clockFor(intervalMs).now;
    snapshot = live ? liveNow : shown;
    subscribers.set(intervalMs, subscribeTo);
    snapshots.set(intervalMs, shown);
    liveSnapshots.set(intervalMs, liveNow);
  }
  // Stable between ticks, as useSyncExternalStore requires; the first subscriber refreshes it.
  return useSyncExternalStore(subscribeTo, snapshot);
}
