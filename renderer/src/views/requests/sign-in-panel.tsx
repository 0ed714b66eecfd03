import { useState } from 'react';
import { isHttpUrl, type OperatorStatus, type SignInState } from '../../../../shared/operator';
import type { CommandError } from '../../../../shared/result';
import { ExternalLink } from './external-link';
import { useNow } from '../use-now';
import { cancelSignIn, signIn } from './requests-actions';
import { useRequestsStore } from './requests-store';
import { formatTime } from '../format';
import { CopyButton } from '../common/copy-button';

/**
 * Operator sign-in with a device code, like pairing: the code, where to enter it, a
 * countdown, and what happens next. The approval happens in the browser, signed in to the
 * control plane; the tokens stay in the host's secret store.
 */
export function SignInPanel({ status }: { status: OperatorStatus }) {
  const [error, setError] = useState<CommandError | null>(null);
  const [busy, setBusy] = useState(false);
  const signOutMessage = useRequestsStore((s) => s.signOutMessage);
  const flow = status.signIn;
  const session = status.session;

  const start = async () => {
    setBusy(true);
    setError(null);
    const result = await signIn();
    setBusy(false);
    if (!result.ok) setError(result.error);
  };

  if (session.state === 'unavailable') {
    return (
      <section className="req-card req-signin" data-testid="sign-in">
        <h3 className="req-signin-title">Operator sign-in is not available</h3>
        <p className="req-error" role="alert" data-testid="sign-in-unavailable">
          {session.reason}
        </p>
      </section>
    );
  }

  const waiting = flow?.phase === 'waiting' || flow?.phase === 'starting';
  return (
    <section className="req-card req-signin" data-testid="sign-in" aria-labelledby="req-signin-title">
      <h3 className="req-signin-title" id="req-signin-title">
        {session.state === 'sign_in_again' ? 'Sign in again' : 'Sign in as an operator'}
      </h3>
      {session.state === 'sign_in_again' ? (
        <p className="req-notice req-notice-warn" role="alert" data-testid="sign-in-again">
          {session.reason}
        </p>
      ) : null}
      {signOutMessage ? <p className="req-notice req-notice-warn">{signOutMessage}</p> : null}
      {flow ? <FlowState flow={flow} controlPlane={status.controlPlane} /> : null}
      {!waiting ? (
        <>
          {!flow ? (
            <p className="req-muted">
              Build requests and their pause, resume and cancel need your operator identity on <span className="req-mono">{status.controlPlane}</span>. You
              approve the sign-in in your browser; the tokens stay on this host.
            </p>
          ) : null}
          <button type="button" className="req-button req-button-primary" onClick={() => void start()} disabled={busy} data-testid="sign-in-start">
            {flow && flow.phase !== 'approved' ? 'Try again' : session.state === 'sign_in_again' ? 'Sign in again' : 'Sign in'}
          </button>
        </>
      ) : (
        <button type="button" className="req-button" onClick={() => void cancelSignIn()} data-testid="sign-in-cancel">
          Cancel sign-in
        </button>
      )}
      {error ? (
        <p className="req-error" role="alert" data-testid="sign-in-error">
          {error.message}
        </p>
      ) : null}
    </section>
  );
}

function FlowState({ flow, controlPlane }: { flow: SignInState; controlPlane: string }) {
  switch (flow.phase) {
    case 'starting':
      return <p className="req-muted">Asking {controlPlane} for a sign-in code…</p>;
    case 'waiting':
      return <WaitingForApproval flow={flow} />;
    case 'approved':
      return <p className="req-notice">Signed in. Loading your identity…</p>;
    case 'denied':
      return (
        <p className="req-notice req-notice-warn" data-testid="sign-in-outcome">
          The sign-in was denied in the browser. Nothing was stored.
        </p>
      );
    case 'expired':
      return (
        <p className="req-notice req-notice-warn" data-testid="sign-in-outcome">
          The code expired before anyone approved it. Start again for a new code.
        </p>
      );
    case 'canceled':
      return (
        <p className="req-muted" data-testid="sign-in-outcome">
          Sign-in canceled.
        </p>
      );
    case 'failed':
      return (
        <p className="req-error" role="alert" data-testid="sign-in-outcome">
          {flow.message}
        </p>
      );
  }
}

function WaitingForApproval({ flow }: { flow: Extract<SignInState, { phase: 'waiting' }> }) {
  const now = useNow(1000);
  const left = Math.max(0, Math.round((Date.parse(flow.expiresAt) - now) / 1000));
  const link = isHttpUrl(flow.verificationUriComplete) ? flow.verificationUriComplete : isHttpUrl(flow.verificationUri) ? flow.verificationUri : null;
  return (
    <div className="req-code-box">
      <p>1. Open this address in a browser where you are signed in to the control plane:</p>
      <p className="req-handoff-link">
        {link ? (
          <ExternalLink href={link} testId="sign-in-link">
            {flow.verificationUri}
          </ExternalLink>
        ) : (
          <span className="req-mono">{flow.verificationUri}</span>
        )}{' '}
        <CopyButton text={flow.verificationUri} label="Copy address" testId="sign-in-copy-address" />
      </p>
      <p>2. Check that it shows this code, and approve:</p>
      <div className="req-code-row">
        <p className="req-code" data-testid="sign-in-code" aria-label={`Sign-in code ${flow.userCode.split('').join(' ')}`}>
          {flow.userCode}
        </p>
        <CopyButton text={flow.userCode} what="sign-in code" testId="sign-in-copy-code" />
      </div>
      <p className="req-muted" role="status" aria-live="polite">
        Waiting for approval · expires in {Math.floor(left / 60)}:{String(left % 60).padStart(2, '0')} · checking every {flow.intervalSeconds} s
      </p>
      {flow.trouble ? (
        <p className="req-notice req-notice-warn" data-testid="sign-in-trouble">
          {flow.trouble.message} Retrying at {formatTime(new Date(flow.trouble.retryAt).toISOString())}.
        </p>
      ) : null}
    </div>
  );
}
