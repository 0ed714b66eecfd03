import type { ReactNode } from 'react';
import type { PairingState } from '../../../../shared/runner';
import { useHostStore } from '../../store';
import { ErrorLine } from '../common/error-line';
import { useCommand } from '../common/use-command';
import { CodeEntry } from './code-entry';
import { PairingCode } from './pairing-code';
import { PairingRetrying } from './pairing-retrying';

/** Pairing from "get a code" to approved, denied, expired or failed, each with its next step. */
export function PairingFlow() {
  const pairing = useHostStore((s) => s.runner.snapshot?.pairing ?? null);
  const revoked = useHostStore((s) => s.runner.status?.state === 'revoked');
  const storage = useHostStore((s) => s.runner.snapshot?.secretStorage);
  const controlPlane = useHostStore((s) => s.settings?.settings.controlPlaneUrl ?? null);
  const start = useCommand('pairing:start');
  const cancel = useCommand('pairing:cancel');

  if (storage?.backend === 'none') {
    return (
      <section className="card" aria-labelledby="pair-title">
        <h2 id="pair-title">Pair this machine</h2>
        <ErrorLine error={{ message: storage.problem ?? 'There is no safe place on this machine to keep the runner secret, so pairing is off.' }} />
        <p className="hint">
          On a server without a keychain, start the headless host with <code>--allow-file-secret-store</code>, or choose the file store in Settings and restart.
        </p>
      </section>
    );
  }

  const startButton = (label: string) => (
    <button type="button" className="button button-primary" data-testid="pairing-start" disabled={start.pending} onClick={() => void start.run()}>
      {start.pending ? 'Asking for a code…' : label}
    </button>
  );

  return (
    <section className="card pairing-card" aria-labelledby="pair-title" data-testid="pairing-flow" data-phase={pairing?.phase ?? 'none'}>
      <h2 id="pair-title">Pair this machine</h2>
      {revoked ? (
        <p className="callout callout-error" data-testid="revoked">
          The control plane revoked this runner and its secret was deleted here. Pair again to keep working.
        </p>
      ) : null}
      <PhaseBody pairing={pairing} controlPlane={controlPlane} startButton={startButton} />
      {pairing === null || ['canceled', 'denied', 'expired', 'failed'].includes(pairing.phase) ? <CodeEntry /> : null}
      {pairing?.phase === 'waiting' || pairing?.phase === 'starting' || pairing?.phase === 'retrying' ? (
        <div className="button-row">
          <button type="button" className="button" data-testid="pairing-cancel" disabled={cancel.pending} onClick={() => void cancel.run()}>
            Cancel pairing
          </button>
        </div>
      ) : null}
      {start.error ? <ErrorLine error={start.error} testId="pairing-error" /> : null}
      {cancel.error ? <ErrorLine error={cancel.error} /> : null}
    </section>
  );
}

function PhaseBody({
  pairing,
  controlPlane,
  startButton,
}: {
  pairing: PairingState | null;
  controlPlane: string | null;
  startButton: (label: string) => ReactNode;
}) {
  const where = controlPlane ? <span className="mono">{controlPlane}</span> : 'the control plane';
  switch (pairing?.phase) {
    case undefined:
    case 'canceled':
      return (
        <>
          <p>
            Pairing links this machine to {where}: you get a short code, someone signed in there approves it, and the runner starts taking work. Wrong address?
            Change the control plane in Settings first.
          </p>
          <div className="button-row">{startButton('Get a pairing code')}</div>
        </>
      );
    case 'starting':
      return <p role="status">Asking {where} for a pairing code…</p>;
    case 'retrying':
      return <PairingRetrying retrying={pairing} where={where} />;
    case 'waiting':
      return (
        <>
          <PairingCode pairing={pairing} />
          <NextSteps />
        </>
      );
    case 'approved':
      return (
        <p className="callout callout-ok" role="status">
          Approved: paired as <strong>{pairing.runnerName}</strong>.
        </p>
      );
    case 'denied':
      return (
        <>
          <p className="callout callout-error" role="status" data-testid="pairing-denied">
            Pairing was denied on the control plane. If that was a mistake, start again and approve the new code.
          </p>
          <div className="button-row">{startButton('Start again')}</div>
        </>
      );
    case 'expired':
      return (
        <>
          <p className="callout callout-warn" role="status" data-testid="pairing-expired">
            The code expired before anyone approved it. Codes last a few minutes; get a new one when you are ready to approve it.
          </p>
          <div className="button-row">{startButton('Start again')}</div>
        </>
      );
    case 'failed':
      return (
        <>
          <ErrorLine error={{ message: pairing.message }} testId="pairing-failed" />
          <p className="hint">Check the control plane address in Settings and that this machine can reach it, then try again.</p>
          <div className="button-row">{startButton('Try again')}</div>
        </>
      );
  }
}

function NextSteps() {
  const name = useHostStore((s) => s.settings?.settings.runnerName ?? null);
  const backend = useHostStore((s) => s.runner.snapshot?.secretStorage.backend);
  return (
    <div className="next-steps">
      <h3>What happens next</h3>
      <ol>
        <li>Open the address and sign in to the control plane.</li>
        <li>
          Check that the code matches, then approve this machine
          {name ? (
            <>
              {' '}
              (it asks as <strong>{name}</strong>)
            </>
          ) : null}
          .
        </li>
        <li>
          This window updates by itself; the runner secret goes into {backend === 'file' ? 'an owner-only file' : 'the system keychain'}, and the runner starts
          taking work.
        </li>
      </ol>
    </div>
  );
}
