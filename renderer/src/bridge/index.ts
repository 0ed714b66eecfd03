import type { RunnerTrayApi } from '../../../shared/contract';
import type { Bridge } from './types';
import { createWsBridge } from './ws-bridge';

export type { Bridge, ConnectionState } from './types';

declare global {
  interface Window {
    runnerTray?: RunnerTrayApi;
  }
}

/**
 * Picks the transport once: Electron's preload API when present, else the WebSocket. The
 * IPC side (it lists the contract's event names, and with them its schemas) is loaded
 * only in Electron, so the headless page carries no zod.
 */
export async function createBridge(): Promise<Bridge> {
  if (window.runnerTray) return (await import('./ipc-bridge')).createIpcBridge(window.runnerTray);
  const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
  return createWsBridge(`${scheme}://${window.location.host}/ws`);
}
