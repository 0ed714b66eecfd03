import type { CommandName } from './contract';
import { TURNS_PAGE_SIZE } from './turns';

/** Log lines a window shows when it opens. */
export const FIRST_LOG_LIMIT = 200;

export interface FirstViewRequest {
  command: CommandName;
  /** As the window's socket sends it (`{}` for none). */
  input: Record<string, unknown>;
}

/**
 * What a window asks for when it connects (`loadSnapshot` in renderer/src/store/sync.ts),
 * for the profile it shows. A window that names that profile in its socket's address
 * (`/ws?profile=<id>`) gets these answers pushed by the headless host the moment the socket
 * opens, each as soon as it is ready, so its first view waits for no round trip after the
 * socket opens (and the page may be busy starting meanwhile).
 */
export function firstViewRequests(profile: string): FirstViewRequest[] {
  return [
    { command: 'turns:list', input: { limit: TURNS_PAGE_SIZE } },
    { command: 'profiles:list', input: {} },
    { command: 'app:info', input: {} },
    { command: 'runner:snapshot', input: { profile } },
    { command: 'telemetry:history', input: {} },
    { command: 'log:recent', input: { limit: FIRST_LOG_LIMIT } },
    { command: 'settings:get', input: { profile } },
    { command: 'usage:get', input: {} },
  ];
}

/** How a pushed answer is matched to the command the window then sends: name and input as sent. */
export function requestKey(command: string, input: unknown): string {
  return `${command} ${JSON.stringify(input ?? {})}`;
}
