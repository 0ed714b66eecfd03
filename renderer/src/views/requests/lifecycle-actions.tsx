import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { LIFECYCLE_ACTIONS, parseReason, REASON_MAX, type LifecycleAction, type RequestDetailView, type ResumeBound } from '../../../../shared/operator';
import type { CommandError } from '../../../../shared/result';
import { Untrusted } from './chips';
import { ACTION_LABEL, actionAvailable, phaseLabel } from './format-request';
import { HandoffPanel } from './handoff-panel';
import { RaiseBound } from './raise-bound';
import { runLifecycle } from './requests-actions';
import { useRequestsStore } from './requests-store';

/**
 * Pause, Resume and Cancel: one click opens a compact confirmation that says exactly what
 * will happen, with an optional reason; a second click sends it. Closed for members, with
 * the reason beside the buttons.
 */
export function LifecycleActions({ detail }: { detail: RequestDetailView }) {
  const lifecycle = useRequestsStore((s) => s.operator?.lifecycle ?? { allowed: false, reason: null });
  const handoff = useRequestsStore((s) => s.handoffs[detail.request.id]);
  const notice = useRequestsStore((s) => (s.notice?.requestId === detail.request.id ? s.notice : null));
  const [open, setOpen] = useState<LifecycleAction | null>(null);
  const whyId = useId();
  const status = detail.request.status;

  return (
    <section className="req-card req-actions-card" aria-label="Request lifecycle">
      <div className="req-actions">
        {LIFECYCLE_ACTIONS.map((action) => {
          const available = actionAvailable(action, status);
          const disabled = !lifecycle.allowed || !available.ok || Boolean(handoff);
          return (
            <button
              key={action}
              type="button"
              className={action === 'cancel' ? 'req-button req-button-danger' : 'req-button'}
              disabled={disabled}
              aria-expanded={open === action}
              aria-describedby={!lifecycle.allowed ? whyId : undefined}
              title={!lifecycle.allowed ? (lifecycle.reason ?? undefined) : (available.why ?? undefined)}
              onClick={() => setOpen(open === action ? null : action)}
              data-testid={`action-${action}`}
            >
              {ACTION_LABEL[action]}
            </button>
          );
        })}
        {!lifecycle.allowed && lifecycle.reason ? (
          <span id={whyId} className="req-muted" data-testid="lifecycle-reason">
            {lifecycle.reason}
          </span>
        ) : null}
      </div>
      {open && lifecycle.allowed && !handoff ? <ConfirmPanel key={open} action={open} detail={detail} onClose={() => setOpen(null)} /> : null}
      {handoff ? <HandoffPanel handoff={handoff} /> : null}
      {notice && !handoff ? (
        <p className={notice.tone === 'ok' ? 'req-notice' : 'req-notice req-notice-warn'} role="status" data-testid="action-notice">
          {notice.text}
        </p>
      ) : null}
    </section>
  );
}

function explain(action: LifecycleAction, detail: RequestDetailView): ReactNode {
  switch (action) {
    case 'pause':
      return 'No runner claims new work for this request from now on. Running work halts at its next task checkpoint: a turn that is running finishes first. You can resume it later.';
    case 'cancel':
      return 'This is final: a canceled request cannot be resumed. Work that has not started expires, and running work is stopped now, without finishing.';
    case 'resume': {
      const checkpoint = [...detail.tasks].filter((t) => t.status === 'completed').sort((a, b) => b.ordinal - a.ordinal)[0];
      return (
        <>
          The request restarts from its last completed checkpoint
          {checkpoint ? (
            <>
              {' '}
              (after task #{checkpoint.ordinal}, <Untrusted text={checkpoint.title} className="req-clamp-1" />)
            </>
          ) : (
            ' (none yet: the start of the phase)'
          )}{' '}
          and its current phase, {phaseLabel(detail.request.currentPhase)}, is queued again for runners.
        </>
      );
    }
  }
}

const CONFIRM_LABEL: Record<LifecycleAction, string> = { pause: 'Pause request', resume: 'Resume request', cancel: 'Cancel request for good' };
const BACK_LABEL: Record<LifecycleAction, string> = { pause: 'Keep it running', resume: 'Keep it paused', cancel: 'Keep the request' };

function ConfirmPanel({ action, detail, onClose }: { action: LifecycleAction; detail: RequestDetailView; onClose: () => void }) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<CommandError | null>(null);
  const titleId = useId();
  const reasonId = useId();
  const reasonErrorId = useId();
  const first = useRef<HTMLTextAreaElement>(null);
  const checked = parseReason(reason);
  const reasonError = !checked.ok ? checked.message : error?.field === 'reason' ? error.message : null;
  const length = reason.trim().length;

  useEffect(() => first.current?.focus(), []);

  const submit = async (bound?: ResumeBound) => {
    if (!checked.ok || busy) return;
    setBusy(true);
    setError(null);
    const result = await runLifecycle(action, detail.request.id, reason, bound);
    setBusy(false);
    if (result.ok) onClose();
    else setError(result.error);
  };

  return (
    <form
      className={action === 'cancel' ? 'req-confirm req-confirm-danger' : 'req-confirm'}
      role="group"
      aria-labelledby={titleId}
      data-testid="confirm-panel"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onClose();
      }}
    >
      <h4 id={titleId} className="req-confirm-title">
        {ACTION_LABEL[action] === 'Cancel request' ? 'Cancel this request?' : `${ACTION_LABEL[action]} this request?`}
      </h4>
      <p className="req-confirm-what" data-testid="confirm-what">
        {explain(action, detail)}
      </p>
      <label htmlFor={reasonId} className="req-label">
        Reason <span className="req-muted">(optional, sent to the control plane)</span>
      </label>
      <textarea
        id={reasonId}
        ref={first}
        className="req-reason"
        rows={2}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        aria-invalid={reasonError !== null}
        aria-describedby={reasonError ? reasonErrorId : undefined}
        data-testid="reason"
      />
      <ReasonFoot error={reasonError} errorId={reasonErrorId} length={length} />
      <Refusal action={action} error={error} detail={detail} busy={busy} onRaise={(bound) => void submit(bound)} />
      <div className="req-confirm-buttons">
        <button type="button" className="req-button" onClick={onClose}>
          {BACK_LABEL[action]}
        </button>
        <button
          type="submit"
          className={action === 'cancel' ? 'req-button req-button-danger' : 'req-button req-button-primary'}
          disabled={busy || !checked.ok}
          data-testid="confirm-action"
        >
          {busy ? 'Sending…' : CONFIRM_LABEL[action]}
        </button>
      </div>
    </form>
  );
}

/** What the control plane refused, in one line; a resume refused for a ceiling offers to raise it [v1]. */
function Refusal(props: {
  action: LifecycleAction;
  error: CommandError | null;
  detail: RequestDetailView;
  busy: boolean;
  onRaise: (bound: ResumeBound) => void;
}) {
  const { action, error } = props;
  if (!error || error.field === 'reason') return null;
  return (
    <>
      <p className="req-error" role="alert" data-testid="action-error">
        {error.message}
      </p>
      {action === 'resume' && error.code === 'ceiling_reached' ? <RaiseBound request={props.detail.request} busy={props.busy} onRaise={props.onRaise} /> : null}
    </>
  );
}

/** Under the reason: what is wrong with it (if anything) and how much room is left. */
function ReasonFoot({ error, errorId, length }: { error: string | null; errorId: string; length: number }) {
  return (
    <div className="req-reason-foot">
      {error ? (
        <span id={errorId} className="req-field-error" data-testid="reason-error">
          {error}
        </span>
      ) : (
        <span />
      )}
      <span className={length > REASON_MAX ? 'req-counter req-counter-over' : 'req-counter'}>
        {length} / {REASON_MAX}
      </span>
    </div>
  );
}
