/**
 * How a browser window proves it is the one an address opened (see main/headless/auth.ts):
 * the page keeps its window key in localStorage (per origin, port included) and offers
 * it as a WebSocket subprotocol beside `runner-tray`; its close probe sends it in a header.
 */
export const WINDOW_PROTOCOL = 'runner-tray';
export const WINDOW_KEY_PROTOCOL_PREFIX = 'rt-key.';
export const WINDOW_KEY_HEADER = 'x-runner-tray-window';
export const WINDOW_KEY_STORAGE = 'runner-tray.window-key';
/** The handoff script an address's first answer loads (it stores the key, then cleans the address). */
export const WINDOW_HANDOFF_SCRIPT = '/__runner-tray/handoff.js';
