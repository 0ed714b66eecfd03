import type { ReactNode } from 'react';
import type { PairingState } from '../../../../shared/runner';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';
import { useNow } from '../use-now';

type Retrying = Extract<PairingState, { phase: 'retrying' }>;

/** The control plane could not be reached: what went wrong, when the next try is, and a way to try now. */
export function PairingRetrying({ retrying, where }: { retrying: Retrying; where: ReactNode }) {
  const now = useNow(1000);
  const seconds = Math.max(0, Math.ceil((Date.parse(retrying.nextAttemptAt) - now) / 1000));
  const what = retrying.what === 'import' ? 'take over the state file' : 'get a pairing code';
  return (
    <div className="callout callout-warn" data-testid="pairing-retrying">
      <p role="status">
        Could not reach {where} to {what}: <span data-testid="pairing-retrying-error">{retrying.lastError}</span>
      </p>
      <p data-testid="pairing-retrying-countdown">
        {seconds > 0 ? `Trying again in ${seconds} s` : 'Trying again now'} (attempt {retrying.attempts + 1}). Check that this machine can reach the control
        plane; nothing needs to be started again.
      </p>
      <RetryNowButton />
    </div>
  );
}

/** Makes the waiting try at once (pairing:retry-now). */
export function RetryNowButton() {
  const retry = useCommand('pairing:retry-now');
  return (
    <>
      <div className="button-row">
        <button type="button" className="button" data-testid="pairing-retry-now" disabled={retry.pending} onClick={() => void retry.run()}>
          {retry.pending ? 'Trying…' : 'Retry now'}
        </button>
      </div>
      {retry.error ? <ErrorLine error={retry.error} /> : null}
    </>
  );
}
