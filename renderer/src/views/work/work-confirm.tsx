import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import type { CommandError } from '../../../../shared/result';
import { REASONED_ACTIONS, REVISION_NOTES_MAX, WORK_REASON_CODES, WORK_REASON_MAX, type WorkBriefAction } from '../../../../shared/work-layer';
import { Untrusted } from '../requests/chips';
import { returnForRevision, runBriefAction } from './work-actions';
import { openConfirm } from './work-store';

export const BRIEF_ACTION_LABEL: Record<WorkBriefAction, string> = {
  pause: 'Pause',
  resume: 'Resume',
  cancel: 'Cancel',
  park: 'Park',
  unpark: 'Unpark',
  supersede: 'Supersede',
};

/** What each verb does to the brief and to the executors working on it (docs/protocol.md §12.7). */
const WHAT: Record<WorkBriefAction, string> = {
  pause: 'The brief stops offering its tasks to executors. Tasks already leased run on to their completion. You can resume it later.',
  resume: 'The brief offers its ready tasks to executors again.',
  cancel:
    'This is final: a canceled brief cannot be resumed. Its running leases end at once (their completions are refused), and its open tasks and work plans are canceled.',
  park: 'The brief is set aside: it offers no new tasks until it is unparked. Tasks already leased run on.',
  unpark: 'The brief is ready for work again and offers its tasks.',
  supersede: 'This is final: the brief offers nothing more, and the executors running its tasks are asked to stop.',
};

const CONFIRM: Record<WorkBriefAction, string> = {
  pause: 'Pause brief',
  resume: 'Resume brief',
  cancel: 'Cancel brief for good',
  park: 'Park brief',
  unpark: 'Unpark brief',
  supersede: 'Supersede brief for good',
};

const FINAL: ReadonlySet<WorkBriefAction> = new Set(['cancel', 'supersede']);

const REASON_LABEL: Record<(typeof WORK_REASON_CODES)[number], string> = {
  operator_request: 'Operator request',
  scope_change: 'Scope changed',
  blocked: 'Blocked',
  duplicate: 'Duplicate',
  priority: 'Priority',
};

/** One verb on one brief: says what will happen, asks for the reason code and text where the Work Layer takes them, sends on the second click. */
export function BriefConfirm({ briefId, title, action }: { briefId: string; title: string; action: WorkBriefAction }) {
  const reasoned = REASONED_ACTIONS.includes(action);
  const [code, setCode] = useState<string>(WORK_REASON_CODES[0]);
  const [reason, setReason] = useState('');
  const tooLong = reason.trim().length > WORK_REASON_MAX;
  return (
    <ConfirmFrame
      title={
        <>
          {BRIEF_ACTION_LABEL[action]} the brief “<Untrusted text={title} className="req-clamp-1" />
          ”?
        </>
      }
      what={WHAT[action]}
      danger={FINAL.has(action)}
      confirm={CONFIRM[action]}
      blocked={tooLong ? `The reason is at most ${WORK_REASON_MAX} characters.` : null}
      send={() => runBriefAction(briefId, action, reasoned ? code : null, reasoned ? reason : '')}
    >
      {reasoned ? (
        <>
          <label className="req-label">
            Reason code
            <select className="work-select" value={code} onChange={(e) => setCode(e.target.value)} data-testid="work-reason-code">
              {WORK_REASON_CODES.map((c) => (
                <option key={c} value={c}>
                  {REASON_LABEL[c]}
                </option>
              ))}
            </select>
          </label>
          <Text label="Reason" hint="(optional, sent to the Work Layer)" value={reason} onChange={setReason} max={WORK_REASON_MAX} testId="work-reason" />
        </>
      ) : null}
    </ConfirmFrame>
  );
}

/** Return a work plan for revision: the notes are required (the Work Layer hands them to the new plan). */
export function RevisionConfirm({ planId, title }: { planId: string; title: string }) {
  const [notes, setNotes] = useState('');
  const length = notes.trim().length;
  return (
    <ConfirmFrame
      title={
        <>
          Return the plan “<Untrusted text={title} className="req-clamp-1" />” for revision?
        </>
      }
      what="The plan stops offering tasks (leased tasks run on). A new pending plan for the same brief gets a copy of every task not completed with pass, and your notes; this plan's unclaimed tasks are canceled."
      danger={false}
      confirm="Return for revision"
      blocked={length === 0 ? 'Say what to revise.' : length > REVISION_NOTES_MAX ? `The notes are at most ${REVISION_NOTES_MAX} characters.` : null}
      send={() => returnForRevision(planId, notes)}
    >
      <Text label="Notes" hint="(required, for whoever revises the plan)" value={notes} onChange={setNotes} max={REVISION_NOTES_MAX} testId="work-notes" />
    </ConfirmFrame>
  );
}

function Text({
  label,
  hint,
  value,
  onChange,
  max,
  testId,
}: {
  label: string;
  hint: string;
  value: string;
  onChange(v: string): void;
  max: number;
  testId: string;
}) {
  const id = useId();
  const length = value.trim().length;
  return (
    <>
      <label htmlFor={id} className="req-label">
        {label} <span className="req-muted">{hint}</span>
      </label>
      <textarea id={id} className="req-reason" rows={2} value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId} />
      <div className="req-reason-foot">
        <span />
        <span className={length > max ? 'req-counter req-counter-over' : 'req-counter'}>
          {length} / {max}
        </span>
      </div>
    </>
  );
}

function ConfirmFrame(props: {
  title: ReactNode;
  what: string;
  danger: boolean;
  confirm: string;
  blocked: string | null;
  send(): Promise<{ ok: true } | { ok: false; error: CommandError }>;
  children?: ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<CommandError | null>(null);
  const titleId = useId();
  const frame = useRef<HTMLFormElement>(null);
  useEffect(() => frame.current?.querySelector<HTMLElement>('select, textarea, button[type=submit]')?.focus(), []);
  const close = () => openConfirm(null);
  const submit = async () => {
    if (busy || props.blocked) return;
    setBusy(true);
    setError(null);
    const result = await props.send();
    setBusy(false);
    if (!result.ok) setError(result.error);
  };
  return (
    <form
      ref={frame}
      className={props.danger ? 'req-confirm req-confirm-danger' : 'req-confirm'}
      role="group"
      aria-labelledby={titleId}
      data-testid="work-confirm"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') close();
      }}
    >
      <h4 id={titleId} className="req-confirm-title">
        {props.title}
      </h4>
      <p className="req-confirm-what" data-testid="work-confirm-what">
        {props.what}
      </p>
      {props.children}
      {props.blocked ? <p className="req-muted">{props.blocked}</p> : null}
      {error ? (
        <p className="req-error" role="alert" data-testid="work-action-error">
          {error.message}
        </p>
      ) : null}
      <div className="req-confirm-buttons">
        <button type="button" className="req-button" onClick={close}>
          Keep it as it is
        </button>
        <button
          type="submit"
          className={props.danger ? 'req-button req-button-danger' : 'req-button req-button-primary'}
          disabled={busy || props.blocked !== null}
          data-testid="work-confirm-action"
        >
          {busy ? 'Sending…' : props.confirm}
        </button>
      </div>
    </form>
  );
}
