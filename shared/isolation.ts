// How much of the machine a runtime's turn can reach, as the core decides it and the UI
// and the heartbeat telemetry report it. Pure data: the core's isolation module
// (main/core/exec/isolation) does the work.
import { z } from 'zod';

/**
 * bubblewrap: Linux, an empty root with the system and the runtime read-only, the turn's
 * folders writable, nothing else of $HOME, the app's data or /tmp. sandbox-exec: macOS,
 * a Seatbelt profile with the same intent. environment: a clean environment and the
 * runtime's own configuration only (no OS sandbox on this machine).
 */
export const ISOLATION_LEVELS = ['bubblewrap', 'sandbox-exec', 'environment'] as const;
export type IsolationLevel = (typeof ISOLATION_LEVELS)[number];
export const IsolationLevelSchema = z.enum(ISOLATION_LEVELS);

export const ISOLATION_LABELS: Readonly<Record<IsolationLevel, string>> = {
  bubblewrap: 'sandboxed (bubblewrap)',
  'sandbox-exec': 'sandboxed (sandbox-exec)',
  environment: 'environment only',
};

export function isSandboxed(level: IsolationLevel): boolean {
  return level !== 'environment';
}
