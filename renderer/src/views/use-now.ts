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

// One subscribe function per interval, so React never sees a new one and resubscribes
// (a resubscription refreshes `now`, which would render again, and so on).
const subscribers = new Map<number, (listener: () => void) => () => void>();
const snapshots = new Map<number, () => number>();

/** The current time, updated every `intervalMs`; re-renders only the component using it. */
export function useNow(intervalMs = 1000): number {
  let subscribeTo = subscribers.get(intervalMs);
  let snapshot = snapshots.get(intervalMs);
  if (!subscribeTo || !snapshot) {
    subscribeTo = (listener) => subscribe(intervalMs, listener);
    snapshot = () => clockFor(intervalMs).now;
    subscribers.set(intervalMs, subscribeTo);
    snapshots.set(intervalMs, snapshot);
  }
  // Stable between ticks, as useSyncExternalStore requires; the first subscriber refreshes it.
  return useSyncExternalStore(subscribeTo, snapshot);
}
