import type { Bridge } from './types';

let current: Bridge | null = null;

/** The one bridge of this window, set once at start-up (main.tsx). */
export function setBridge(bridge: Bridge): void {
  current = bridge;
}

/** Views invoke commands through this; events reach them only through the store. */
export function getBridge(): Bridge {
  if (!current) throw new Error('the bridge is not set up yet');
  return current;
}
