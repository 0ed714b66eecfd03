import type { PairingState } from '../../../../shared/runner';
import type { ControlPlaneFault, RunnerStatus } from '../../../../shared/status';

export interface StatusInputs {
  paired: boolean;
  pairing: PairingState | null;
  revoked: boolean;
  problem: string | null;
  offline: { retryAt: number; message: string; fault?: ControlPlaneFault } | null;
  paused: { until: number | null; at?: number; by?: 'you'; note?: string | null } | null;
  draining: boolean;
  /** A quit waiting for running turns (until `deadline`), or canceling them (`now`). */
  stopping?: { deadline: number; mode: 'after-turns' | 'now' } | null;
  active: number;
  max: number;
  connected: boolean;
  /** "Run work on this machine" is off (`RUNNER_EXECUTE=0`): connected, but claiming nothing. */
  heartbeatOnly?: boolean;
  /** Why no allowed runtime can take work (not signed in, breaker open), or null. */
  notReady?: string | null;
  /** Why claims wait although nothing else stops them (a usage reserve or limit), or null. */
  claimsDeferred?: string | null;
  /** Why the host's lending terms hold new work back (outside the lending hours, in use, on battery…), or null. */
  lendingHeld?: string | null;
  /** Why the folders a claim needs cannot be written (the path and the error), or null. */
  storage?: string | null;
}

/** Derives the one status line from the runner's facts; pure, so every state is testable. */
export function deriveStatus(s: StatusInputs): RunnerStatus {
  if (!s.paired) {
    if (s.pairing && (s.pairing.phase === 'starting' || s.pairing.phase === 'waiting')) {
      return { state: 'pairing', reason: 'Waiting for someone to approve this machine on the control plane.' };
    }
    if (s.pairing?.phase === 'retrying') {
      const what = s.pairing.what === 'import' ? 'take over the state file' : 'pair';
      return { state: 'pairing', reason: `Cannot reach the control plane to ${what} (${s.pairing.lastError}); trying again by itself.` };
    }
    if (s.revoked) return { state: 'revoked', reason: 'The control plane revoked this runner. Pair again to keep working.' };
    if (s.problem) return { state: 'error', reason: s.problem };
    return { state: 'unpaired', reason: 'This machine is not paired with a control plane yet.' };
  }
  if (s.problem) return { state: 'error', reason: s.problem };
  if (s.stopping) {
    const deadline = new Date(s.stopping.deadline).toISOString();
    const reason =
      s.stopping.mode === 'now'
        ? 'Canceling the running turns to quit; their results are still reported.'
        : s.active > 0
          ? 'Not taking new work; quits when the running turns finish, and cancels them at the limit.'
          : 'Quitting.';
    return { state: 'draining', remaining: s.active, deadline, mode: s.stopping.mode, reason };
  }
  if (s.draining) {
    return { state: 'draining', remaining: s.active, reason: 'Quitting after the running turns finish.' };
  }
  // Nothing is claimed while the disk refuses writes: red, whatever else is true (running turns go on).
  if (s.storage) return { state: 'error', reason: s.storage };
  if (s.offline) {
    const retryAt = new Date(s.offline.retryAt).toISOString();
    const fault = s.offline.fault ? { fault: s.offline.fault } : {};
    // Running turns go on while the control plane has a problem: never hide them behind it.
    if (s.active > 0 && !s.paused) {
      return {
        state: 'working',
        active: s.active,
        limit: s.max,
        retryAt,
        ...fault,
        reason: `${s.offline.message} Running turns go on; their results wait to be delivered.`,
      };
    }
    return { state: 'offline', retryAt, ...fault, reason: s.offline.message };
  }
  if (s.paused) {
    const until = s.paused.until === null ? null : new Date(s.paused.until).toISOString();
    const base = s.active > 0 ? `Not taking new work; ${s.active} running turn${s.active === 1 ? '' : 's'} will finish.` : 'Not taking new work.';
    const reason = s.paused.note ? `${base} Note: ${s.paused.note}` : base;
    return {
      state: 'paused',
      until,
      reason,
      ...(s.paused.at !== undefined ? { at: new Date(s.paused.at).toISOString() } : {}),
      ...(s.paused.by ? { by: s.paused.by } : {}),
      ...(s.paused.note !== undefined ? { note: s.paused.note } : {}),
    };
  }
  if (s.active > 0) {
    return { state: 'working', active: s.active, limit: s.max, reason: `Running ${s.active} of up to ${s.max} turns.` };
  }
  if (s.notReady) return { state: 'idle', held: s.notReady, reason: `Not taking work: ${s.notReady}.` };
  if (!s.connected) return { state: 'idle', reason: 'Connecting to the control plane…' };
  if (s.heartbeatOnly) return { state: 'idle', reason: 'Heartbeat only: this machine takes no work ("Run work on this machine" is off).' };
  if (s.lendingHeld) return { state: 'idle', held: s.lendingHeld, reason: `Not taking work: ${s.lendingHeld}.` };
  if (s.claimsDeferred) return { state: 'idle', reason: s.claimsDeferred };
  return { state: 'idle', reason: 'Connected and waiting for work.' };
}
