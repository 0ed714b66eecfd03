/** Polling rules shared by runner pairing and the operator device flow (RFC 8628 §3.5). */
export type PollOutcome = 'expired_token' | 'slow_down' | 'authorization_pending' | 'access_denied' | 'approved' | 'consumed';

export interface PollState {
  status: string;
  interval_s: number;
  last_poll_at: number | null;
  expires_at: number;
}

/** Polls a little early (timer jitter) are not punished. */
const JITTER_MS = 250;
export const SLOW_DOWN_STEP_S = 5;

export function evaluatePoll(state: PollState, now: number): { outcome: PollOutcome; interval_s: number } {
  if (state.status === 'consumed' || state.status === 'claimed') return { outcome: 'consumed', interval_s: state.interval_s };
  if (state.expires_at <= now) return { outcome: 'expired_token', interval_s: state.interval_s };
  if (state.status === 'denied') return { outcome: 'access_denied', interval_s: state.interval_s };
  if (state.status === 'approved') return { outcome: 'approved', interval_s: state.interval_s };
  const tooSoon = state.interval_s > 0 && state.last_poll_at !== null && now - state.last_poll_at < state.interval_s * 1000 - JITTER_MS;
  if (tooSoon) return { outcome: 'slow_down', interval_s: state.interval_s + SLOW_DOWN_STEP_S };
  return { outcome: 'authorization_pending', interval_s: state.interval_s };
}
