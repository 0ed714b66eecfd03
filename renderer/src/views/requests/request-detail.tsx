import type { ReactNode } from 'react';
import type { RequestDetailView } from '../../../../shared/operator';
import { useNow } from '../use-now';
import { CeilingMeters } from './ceiling-meters';
import { RiskChip, StatusChip, Untrusted } from './chips';
import { Changesets, Gates, PhaseRuns, PlanVersions, Tasks } from './detail-sections';
import { RequestTurns, useRequestTurns } from './detail-turns';
import { automationLabel, formatAge, formatStamp, phaseLabel, SOURCE_LABEL, STATUS_LABEL } from './format-request';
import { LifecycleActions } from './lifecycle-actions';
import { loadDetail } from './requests-actions';
import { selectRequest, useRequestsStore } from './requests-store';
import { usePolling } from './requests-sync';

const DETAIL_EVERY_MS = 3_000;

/** One build request: what it is, where it stands, its history, and the lifecycle controls. */
export function RequestDetail({ id }: { id: string }) {
  const detail = useRequestsStore((s) => (s.detail?.request.id === id ? s.detail : null));
  const error = useRequestsStore((s) => s.detailError);
  const now = useNow(1000);
  usePolling(() => loadDetail(id), DETAIL_EVERY_MS, id);

  return (
    <div className="req-detail" data-testid="request-detail">
      <button type="button" className="req-button req-button-quiet req-back" onClick={() => selectRequest(null)}>
        ← All requests
      </button>
      {error ? (
        <p className="req-error" role="alert" data-testid="detail-error">
          {error.message}
        </p>
      ) : null}
      {!detail ? (
        <p className="req-empty">{error ? 'This request could not be loaded.' : 'Loading the request…'}</p>
      ) : (
        <>
          <header className="req-detail-head">
            <h3 className="req-detail-title" data-testid="detail-title">
              <Untrusted text={detail.request.title} className="req-clamp-3" />
            </h3>
            <div className="req-facts">
              <StatusChip status={detail.request.status} />
              <span>{phaseLabel(detail.request.currentPhase)} phase</span>
              <RiskChip risk={detail.request.risk} />
              <span className="req-muted">{automationLabel(detail.request.automationMode)}</span>
              <span className="req-muted">from {SOURCE_LABEL[detail.request.sourceChannel]}</span>
              <span className="req-muted" title={formatStamp(detail.request.createdAt)}>
                created {formatAge(detail.request.createdAt, now)} ago
              </span>
              <WorkingHere detail={detail} />
            </div>
            {detail.request.statusReason ? (
              <p className="req-status-reason" data-testid="detail-status-reason">
                <span className="req-muted">Why it is {STATUS_LABEL[detail.request.status].toLowerCase()}: </span>
                <Untrusted text={detail.request.statusReason} className="req-text req-full" />
                <span className="req-muted"> (the control plane does not say who)</span>
              </p>
            ) : null}
          </header>
          <LifecycleActions detail={detail} />
          <CeilingMeters request={detail.request} now={now} />
          <div className="req-sections">
            <Section title="This runner's turns">
              <RequestTurns detail={detail} />
            </Section>
            <Section title="Phase runs">
              <PhaseRuns runs={detail.phaseRuns} />
            </Section>
            <Section title={`Gates${countOpen(detail.gates) ? ` · ${countOpen(detail.gates)} open` : ''}`}>
              <Gates gates={detail.gates} />
            </Section>
            <Section title="Plan versions">
              <PlanVersions versions={detail.planVersions} />
            </Section>
            <Section title="Tasks and checkpoints">
              <Tasks tasks={detail.tasks} />
            </Section>
            <Section title="Changesets">
              <Changesets changesets={detail.changesets} />
            </Section>
          </div>
        </>
      )}
    </div>
  );
}

function WorkingHere({ detail }: { detail: RequestDetailView }) {
  const { active } = useRequestTurns(detail);
  if (active.length === 0) return null;
  return (
    <span className="req-badge req-badge-here" data-testid="running-here">
      This runner is working on it{active.length > 1 ? ` (${active.length} turns)` : ''}
    </span>
  );
}

function countOpen(gates: { status: string }[]): number {
  return gates.filter((g) => g.status === 'open').length;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="req-card req-section" aria-label={title}>
      <h4 className="req-section-title">{title}</h4>
      {children}
    </section>
  );
}
