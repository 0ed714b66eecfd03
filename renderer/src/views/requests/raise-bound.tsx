import { useId, useState } from 'react';
import { ResumeBoundSchema, type RequestSummaryView, type ResumeBound } from '../../../../shared/operator';
import './raise-bound.css';

type Fields = { maxIterations: string; maxWallClockSeconds: string; costBudgetUsd: string };

const LABELS: Record<keyof Fields, string> = {
  maxIterations: 'Most iterations',
  maxWallClockSeconds: 'Wall-clock limit (seconds)',
  costBudgetUsd: 'Cost budget (USD)',
};

/** The form's text into the ceilings to send: only those changed from the request's, checked by the shared schema. */
export function parseBound(fields: Fields, request: RequestSummaryView): { ok: true; bound: ResumeBound } | { ok: false; message: string } {
  const whole = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()));
  const raw = {
    maxIterations: whole(fields.maxIterations),
    maxWallClockSeconds: whole(fields.maxWallClockSeconds),
    costBudgetUsd: fields.costBudgetUsd.trim() === '' ? undefined : fields.costBudgetUsd.trim(),
  };
  const changed = {
    ...(raw.maxIterations !== undefined && raw.maxIterations !== request.maxIterations ? { maxIterations: raw.maxIterations } : {}),
    ...(raw.maxWallClockSeconds !== undefined && raw.maxWallClockSeconds !== request.maxWallClockSeconds
      ? { maxWallClockSeconds: raw.maxWallClockSeconds }
      : {}),
    ...(raw.costBudgetUsd !== undefined && raw.costBudgetUsd !== request.costBudgetUsd ? { costBudgetUsd: raw.costBudgetUsd } : {}),
  };
  const parsed = ResumeBoundSchema.safeParse(changed);
  if (parsed.success) return { ok: true, bound: parsed.data };
  return { ok: false, message: parsed.error.issues[0]?.message ?? 'Check the ceilings.' };
}

/**
 * Shown when the control plane refused a resume because a ceiling is reached: the request's
 * ceilings, editable, sent with the resume as its `termination_bound` [v1].
 */
export function RaiseBound({ request, busy, onRaise }: { request: RequestSummaryView; busy: boolean; onRaise: (bound: ResumeBound) => void }) {
  const [fields, setFields] = useState<Fields>({
    maxIterations: request.maxIterations === null ? '' : String(request.maxIterations),
    maxWallClockSeconds: request.maxWallClockSeconds === null ? '' : String(request.maxWallClockSeconds),
    costBudgetUsd: request.costBudgetUsd ?? '',
  });
  const [touched, setTouched] = useState(false);
  const errorId = useId();
  const ids = { maxIterations: useId(), maxWallClockSeconds: useId(), costBudgetUsd: useId() };
  const checked = parseBound(fields, request);
  const error = touched && !checked.ok ? checked.message : null;

  return (
    <fieldset className="req-bound" data-testid="raise-bound">
      <legend className="req-label">Raise the ceilings and resume</legend>
      {(Object.keys(LABELS) as (keyof Fields)[]).map((key) => (
        <div key={key} className="req-bound-field">
          <label htmlFor={ids[key]}>{LABELS[key]}</label>
          <input
            id={ids[key]}
            className="req-bound-input"
            inputMode={key === 'costBudgetUsd' ? 'decimal' : 'numeric'}
            value={fields[key]}
            onChange={(e) => {
              setTouched(true);
              setFields({ ...fields, [key]: e.target.value });
            }}
            aria-invalid={error !== null}
            aria-describedby={error ? errorId : undefined}
            data-testid={`bound-${key}`}
          />
        </div>
      ))}
      {error ? (
        <p id={errorId} className="req-field-error" data-testid="bound-error">
          {error}
        </p>
      ) : null}
      <button
        type="button"
        className="req-button req-button-primary"
        disabled={busy || !checked.ok}
        onClick={() => checked.ok && onRaise(checked.bound)}
        data-testid="raise-and-resume"
      >
        {busy ? 'Sending…' : 'Raise and resume'}
      </button>
    </fieldset>
  );
}
