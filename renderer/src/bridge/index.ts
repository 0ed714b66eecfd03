import type { RunnerTrayApi } from '../../../shared/contract';
import type { Bridge } from './types';
import { createWsBridge, probeCloseCause, storedWindowKey } from './ws-bridge';

export type { Bridge, ConnectionState } from './types';

declare global {
  interface Window {
    runnerTray?: RunnerTrayApi;
  }
}

/**
 * Picks the transport once: Electron's preload API when present, else the WebSocket. The
 * IPC side (it lists the contract's event names, and with them its schemas) is loaded
 * only in Electron, so the headless page carries no zod. The WebSocket is made at once
 * (no await), so its socket can open while the rest of the page's script starts;
 * `firstProfile` is the profile the window shows (its first answers are pushed).
 */
export function createBridge(firstProfile: () => string): Bridge | Promise<Bridge> {
  if (window.runnerTray) return import('./ipc-bridge').then(({ createIpcBridge }) => createIpcBridge(window.runnerTray!));
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  const windowKey = storedWindowKey();
  return createWsBridge(`${scheme}://${window.location.host}/ws`, () => probeCloseCause(fetch, windowKey), firstProfile, windowKey);
}
