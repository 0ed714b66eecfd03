import { errorText } from '../../../../shared/errors';
import type { ControlPlaneFault } from '../../../../shared/status';
import { faultReason, isConnectorError } from '../../connectors/errors';
import type { SessionStatus } from './executor-contract';

/**
 * How a failed claim reads in the status: an answer that does not fit the protocol is the
 * fault `malformed`, worded as the Rost status words it ("the control plane answers
 * nonsense"); anything else stays "claim failed: …".
 */
export function claimFailure(error: unknown): { message: string; fault?: ControlPlaneFault } {
  if (isConnectorError(error, 'invalid_response')) return { message: faultReason('malformed', errorText(error)), fault: 'malformed' };
  return { message: `claim failed: ${errorText(error)}` };
}

/** The executor's state while it backs off after a failed claim, until `retryAt`. */
export function claimBackoffState(instanceId: string | null, error: unknown, retryAt: number): SessionStatus {
  return { state: 'backing_off', instanceId, ...claimFailure(error), retryAt: new Date(retryAt).toISOString() };
}
