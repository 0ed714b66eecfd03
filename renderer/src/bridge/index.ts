import type { RunnerTrayApi } from '../../../shared/contract';
import { createIpcBridge } from './ipc-bridge';
import type { Bridge } from './types';
import { createWsBridge } from './ws-bridge';

export type { Bridge, ConnectionState } from './types';

declare global {
  interface Window {
    runnerTray?: RunnerTrayApi;
  }
}

/** Picks the transport once: Electron's preload API when present, else the WebSocket. */
export function createBridge(): Bridge {
  if (window.runnerTray) return createIpcBridge(window.runnerTray);
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return createWsBridge(`${scheme}://${window.location.host}/ws`);
}
