import { COMMAND_NAMES } from '../../../shared/contract';
import type { Result } from '../../../shared/result';
import { getBridge } from './instance';

/**
 * Commands that only the desktop app can carry out and that the contract does not have
 * yet: opening a link in the operator's browser and opening the logs folder (both need
 * Electron's `shell`). The buttons that use them show only when the host offers them,
 * so the window lights them up the day the contract gains them, and never offers a
 * button that cannot work (headless has no desktop to open things on).
 */
export type OptionalCommand = 'app:open-external' | 'app:open-logs';

export function hostOffers(name: OptionalCommand, transport: 'ipc' | 'websocket'): boolean {
  return transport === 'ipc' && (COMMAND_NAMES as readonly string[]).includes(name);
}

export function invokeOptional(name: OptionalCommand, input?: unknown): Promise<Result<unknown>> {
  const invoke = getBridge().invoke as (name: string, input?: unknown) => Promise<Result<unknown>>;
  return invoke(name, input);
}
