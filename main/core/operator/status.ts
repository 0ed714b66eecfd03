import type { OperatorStatus, SignInState } from '../../../shared/operator';
import type { SessionState } from './operator-session';

export interface StatusInput {
  origin: string;
  secretProblem: string | null;
  session: SessionState;
  signIn: SignInState | null;
  signInRunning: boolean;
}

export const MEMBER_LIFECYCLE_REASON = 'Only tenant admins can pause, resume or cancel requests; you are signed in as a member.';
export const SIGNED_OUT_LIFECYCLE_REASON = 'Sign in as a tenant admin to pause, resume or cancel requests.';

/** The operator status the window shows: never a token, always a reason for what is closed. */
export function operatorStatus(input: StatusInput): OperatorStatus {
  const { session } = input;
  const view: OperatorStatus['session'] = input.secretProblem
    ? { state: 'unavailable', reason: `Sign-in is not possible: ${input.secretProblem}` }
    : session.state === 'signed_in'
      ? session.identity
        ? {
            state: 'signed_in',
            identity: {
              operatorId: session.identity.operator_id,
              tenantId: session.identity.tenant_id,
              name: session.identity.name,
              role: session.identity.role,
            },
          }
        : { state: 'checking' }
      : session;
  const signedIn = view.state === 'signed_in';
  return {
    controlPlane: input.origin,
    session: view,
    // Once signed in, the finished flow has nothing more to say.
    signIn: signedIn && !input.signInRunning ? null : input.signIn,
    lifecycle: signedIn
      ? view.identity.role === 'tenant_admin'
        ? { allowed: true, reason: null }
        : { allowed: false, reason: MEMBER_LIFECYCLE_REASON }
      : { allowed: false, reason: SIGNED_OUT_LIFECYCLE_REASON },
  };
}
