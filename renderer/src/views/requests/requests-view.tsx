import { CapacityTable } from './capacity-table';
import { OperatorBar } from './operator-bar';
import { RequestBoard } from './request-board';
import { RequestDetail } from './request-detail';
import { useEffect } from 'react';
import { useRouteParam } from '../use-route';
import { showRequest, useRequestsStore } from './requests-store';
import { useOperatorSync } from './requests-sync';
import { SignInPanel } from './sign-in-panel';

/**
 * Build requests of the operator's tenant (Forge): sign-in, the board (with the tenant's
 * runner capacity under it), one request's detail, and pause / resume / cancel with a
 * human confirmation. Everything the control
 * plane wrote here (titles, summaries, questions, answers) is shown as text, never HTML.
 */
export function RequestsView() {
  useOperatorSync();
  const operator = useRequestsStore((s) => s.operator);
  const operatorError = useRequestsStore((s) => s.operatorError);
  const selectedId = useRequestsStore((s) => s.selectedId);
  const session = operator?.session;
  // `#requests/<id>` opens that request; Back in the browser returns to the board.
  const fromAddress = useRouteParam();
  useEffect(() => showRequest(fromAddress), [fromAddress]);

  return (
    <section className="requests" aria-labelledby="requests-title" data-testid="requests-view">
      <header className="req-head">
        <h2 id="requests-title">Build requests</h2>
        {session?.state === 'signed_in' ? <OperatorBar identity={session.identity} /> : null}
      </header>
      {operatorError ? (
        <p className="req-error" role="alert">
          {operatorError.message}
        </p>
      ) : null}
      {!operator || session?.state === 'checking' ? (
        <p className="req-empty">Checking the operator sign-in…</p>
      ) : session?.state !== 'signed_in' ? (
        <SignInPanel status={operator} />
      ) : selectedId ? (
        <RequestDetail id={selectedId} />
      ) : (
        <>
          <RequestBoard />
          <CapacityTable />
        </>
      )}
    </section>
  );
}
