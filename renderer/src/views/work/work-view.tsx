import { useLayoutEffect } from 'react';
import type { WorkBriefView, WorkPlanView, WorkTaskView } from '../../../../shared/work-layer';
import { briefActions, canReturnForRevision } from '../../../../shared/work-layer';
import { useHostStore } from '../../store';
import { Untrusted } from '../requests/chips';
import { usePolling } from '../requests/requests-sync';
import { forgetWorkBoard, loadWorkBoard } from './work-actions';
import { BRIEF_ACTION_LABEL, BriefConfirm, RevisionConfirm } from './work-confirm';
import { openConfirm, useWorkStore } from './work-store';

const BOARD_EVERY_MS = 5_000;

const BRIEF_STATUS: Record<WorkBriefView['status'], string> = {
  ready_for_decomposition: 'Ready',
  paused: 'Paused',
  parked: 'Parked',
  superseded: 'Superseded',
  cancelled: 'Canceled',
};
const TASK_STATUS: Record<WorkTaskView['status'], string> = {
  proposed: 'Proposed (not ratified)',
  ready: 'Offered',
  leased: 'Leased',
  completed: 'Completed',
  canceled: 'Canceled',
};

/**
 * The operator's view of a Sechroom Work Layer: briefs, their work plans and tasks (who
 * holds a lease, verdicts, the last completion), and the brief and plan verbs, each
 * confirmed once with what it will do. Everything the Work Layer wrote is shown as text.
 */
export function WorkView() {
  const connected = useHostStore((s) => s.connection.state === 'open');
  const profile = useHostStore((s) => s.profile);
  const profileName = useHostStore((s) => s.profiles.find((p) => p.id === s.profile)?.name ?? null);
  const several = useHostStore((s) => s.profiles.length > 1);
  const ours = useWorkStore((s) => s.profile === profile);
  const board = useWorkStore((s) => (ours ? s.board : null));
  const error = useWorkStore((s) => (ours ? s.boardError : null));
  // Another profile shown: its Work Layer, read afresh; nothing of the last one's stays on screen.
  useLayoutEffect(() => forgetWorkBoard, [profile]);
  usePolling(connected ? loadWorkBoard : null, BOARD_EVERY_MS, profile);

  return (
    <section className="requests work" aria-labelledby="work-title" data-testid="work-view" data-profile={profile}>
      <header className="req-head">
        <h2 id="work-title">Work (Sechroom){several && profileName ? ` · ${profileName}` : ''}</h2>
        {board?.state === 'ready' ? (
          <span className="req-muted req-mono" data-testid="work-layer-url">
            {board.baseUrl}
          </span>
        ) : null}
        <button type="button" className="req-button req-button-quiet" onClick={() => void loadWorkBoard()}>
          Refresh
        </button>
      </header>
      {error ? (
        <p className="req-error" role="alert" data-testid="work-error">
          {error.message}
        </p>
      ) : null}
      {!board ? (
        <p className="req-empty">{error ? 'The Work Layer could not be read.' : 'Reading the Work Layer…'}</p>
      ) : board.state === 'not_configured' ? (
        <p className="req-empty" data-testid="work-not-configured">
          {board.message}
        </p>
      ) : board.briefs.length === 0 ? (
        <p className="req-empty">No work briefs in this tenant yet.</p>
      ) : (
        <>
          {board.briefs.map((brief) => (
            <Brief key={brief.id} brief={brief} />
          ))}
          {board.more.briefs + board.more.plans + board.more.tasks > 0 ? (
            <p className="req-muted">
              The newest are shown; the Work Layer has {board.more.briefs} more brief(s), {board.more.plans} plan(s) and {board.more.tasks} task(s).
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}

function Brief({ brief }: { brief: WorkBriefView }) {
  const open = useWorkStore((s) => s.open);
  const actions = briefActions(brief.status);
  const confirming = open?.kind === 'brief' && open.id === brief.id ? open.action : null;
  return (
    <article className="req-card work-brief" data-testid="work-brief" data-brief-id={brief.id} aria-label="Work brief">
      <div className="work-brief-head">
        <h3 className="work-title">
          <Untrusted text={brief.title} className="req-clamp-2" />
        </h3>
        <span className={`req-chip work-status-${brief.status}`} data-testid="brief-status">
          {BRIEF_STATUS[brief.status]}
        </span>
      </div>
      {brief.reasonCode || brief.reason ? (
        <p className="req-muted work-why" data-testid="brief-reason">
          {brief.reasonCode ? <span className="req-mono">{brief.reasonCode}</span> : null}
          {brief.reason ? (
            <>
              {' — '}
              <Untrusted text={brief.reason} className="req-clamp-2" />
            </>
          ) : null}
          {brief.source ? (
            <span>
              {' '}
              (by <Untrusted text={brief.source} />)
            </span>
          ) : null}
        </p>
      ) : null}
      <div className="req-actions" role="group" aria-label="Brief actions">
        {actions.length === 0 ? <span className="req-muted">This brief is final: nothing more can be done with it.</span> : null}
        {actions.map((action) => (
          <button
            key={action}
            type="button"
            className={action === 'cancel' || action === 'supersede' ? 'req-button req-button-danger' : 'req-button'}
            aria-expanded={confirming === action}
            onClick={() => openConfirm(confirming === action ? null : { kind: 'brief', id: brief.id, action })}
            data-testid={`brief-action-${action}`}
          >
            {BRIEF_ACTION_LABEL[action]}
          </button>
        ))}
      </div>
      {confirming ? <BriefConfirm key={confirming} briefId={brief.id} title={brief.title} action={confirming} /> : null}
      <Notice targetId={brief.id} />
      {brief.plans.length === 0 ? <p className="req-empty">No work plan yet.</p> : brief.plans.map((plan) => <Plan key={plan.id} plan={plan} />)}
    </article>
  );
}

function Plan({ plan }: { plan: WorkPlanView }) {
  const open = useWorkStore((s) => s.open);
  const confirming = open?.kind === 'plan' && open.id === plan.id;
  return (
    <section className="work-plan" data-testid="work-plan" data-plan-id={plan.id} aria-label="Work plan">
      <div className="work-plan-head">
        <span className="work-plan-title">
          <Untrusted text={plan.title} className="req-clamp-1" />
        </span>
        <span className="req-chip work-plan-status" data-testid="plan-status">
          {plan.status}
        </span>
        <span className="req-muted req-mono">{plan.id}</span>
        {canReturnForRevision(plan.status) ? (
          <button
            type="button"
            className="req-button req-button-quiet"
            aria-expanded={confirming}
            onClick={() => openConfirm(confirming ? null : { kind: 'plan', id: plan.id })}
            data-testid="plan-revise"
          >
            Return for revision
          </button>
        ) : null}
      </div>
      {plan.revisionNotes ? (
        <p className="req-muted work-why">
          Revision notes: <Untrusted text={plan.revisionNotes} className="req-clamp-2" />
        </p>
      ) : null}
      {confirming ? <RevisionConfirm planId={plan.id} title={plan.title} /> : null}
      <Notice targetId={plan.id} />
      {plan.tasks.length === 0 ? (
        <p className="req-empty">No tasks listed.</p>
      ) : (
        <div className="work-tasks" role="table" aria-label="Tasks">
          <div className="work-task work-task-head" role="row">
            <span role="columnheader">Task</span>
            <span role="columnheader">Status</span>
            <span role="columnheader">Lane</span>
            <span role="columnheader">Lease</span>
            <span role="columnheader">Verdict</span>
            <span role="columnheader">Last completion</span>
          </div>
          {plan.tasks.map((task) => (
            <Task key={task.memoryId} task={task} />
          ))}
        </div>
      )}
    </section>
  );
}

/** What the last action on this brief or plan said. */
function Notice({ targetId }: { targetId: string }) {
  const notice = useWorkStore((s) => (s.notice?.targetId === targetId ? s.notice : null));
  if (!notice) return null;
  return (
    <p className={notice.tone === 'ok' ? 'req-notice' : 'req-notice req-notice-warn'} role="status" data-testid="work-notice">
      {notice.text}
    </p>
  );
}

function Task({ task }: { task: WorkTaskView }) {
  const last = task.lastCompletion;
  return (
    <div className="work-task" role="row" data-testid="work-task" data-task-id={task.memoryId}>
      <span role="cell" className="work-cell-title">
        <Untrusted text={task.title} className="req-clamp-1" />
      </span>
      <span role="cell" data-testid="task-status">
        {TASK_STATUS[task.status]}
      </span>
      <span role="cell" className="req-mono">
        {task.laneId ? <Untrusted text={task.laneId} /> : '—'}
      </span>
      <span role="cell" data-testid="task-lease">
        {task.leaseHolder ? (
          <>
            <Untrusted text={task.leaseHolder} />
            {task.cancelRequested ? <span className="req-muted"> (asked to stop)</span> : null}
          </>
        ) : (
          '—'
        )}
      </span>
      <span role="cell" data-testid="task-verdict">
        {task.verdict ?? '—'}
      </span>
      <span role="cell" className="work-cell-last" data-testid="task-last">
        {last ? (
          <>
            {last.verdict} · <Untrusted text={last.source} /> · {new Date(last.receivedAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}
          </>
        ) : (
          '—'
        )}
      </span>
    </div>
  );
}
