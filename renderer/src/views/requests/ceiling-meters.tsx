import type { RequestSummaryView } from '../../../../shared/operator';
import { formatSeconds, formatUsd } from './format-request';

const ACTIVE = new Set(['open', 'in_progress', 'paused', 'blocked']);

interface MeterProps {
  label: string;
  /** null: the control plane does not report how much is used. */
  value: number | null;
  /** null: no ceiling. */
  max: number | null;
  text: string;
  title: string;
}

/** One ceiling: a native <meter> when both numbers are known, else just the words. */
function Ceiling({ label, value, max, text, title }: MeterProps) {
  const measurable = value !== null && max !== null && max > 0;
  return (
    <div className="req-ceiling" title={title}>
      <span className="req-ceiling-label">{label}</span>
      {measurable ? (
        <meter min={0} max={max} value={Math.min(value, max)} low={max * 0.75} high={max * 0.9} optimum={0} aria-label={`${label}: ${text}`} />
      ) : (
        <span className="req-meter-empty" aria-hidden="true" />
      )}
      <span className="req-ceiling-text">{text}</span>
    </div>
  );
}

/**
 * The request's ceilings [seed]: iterations used of the maximum, the wall-clock limit
 * (measured from creation while the request is live), and the cost budget (the protocol
 * does not report spend, so only the budget is shown). Every one of them may be absent.
 */
export function CeilingMeters({ request, now, compact = false }: { request: RequestSummaryView; now: number; compact?: boolean }) {
  const iterations = request.maxIterations;
  const wall = request.maxWallClockSeconds;
  const live = ACTIVE.has(request.status);
  const elapsed = Math.max(0, Math.round((now - Date.parse(request.createdAt)) / 1000));
  return (
    <div className={compact ? 'req-ceilings req-ceilings-compact' : 'req-ceilings'} data-testid="request-ceilings">
      <Ceiling
        label="Iterations"
        value={request.iterationsUsed}
        max={iterations}
        text={iterations === null ? `${request.iterationsUsed} · no limit` : `${request.iterationsUsed} of ${iterations}`}
        title={iterations === null ? 'No iteration ceiling' : `${request.iterationsUsed} of ${iterations} iterations used`}
      />
      <Ceiling
        label="Wall clock"
        value={live && wall !== null ? elapsed : null}
        max={wall}
        text={wall === null ? 'no limit' : live ? `${formatSeconds(Math.min(elapsed, wall * 10))} of ${formatSeconds(wall)}` : `limit ${formatSeconds(wall)}`}
        title={wall === null ? 'No wall-clock ceiling' : `Wall-clock ceiling ${formatSeconds(wall)}, measured from when the request was created`}
      />
      <Ceiling
        label="Budget"
        value={null}
        max={null}
        text={request.costBudgetUsd === null ? 'no limit' : `spent — of ${formatUsd(request.costBudgetUsd)}`}
        title={request.costBudgetUsd === null ? 'No cost budget' : `Spent: not reported by the control plane, of a ${formatUsd(request.costBudgetUsd)} budget`}
      />
    </div>
  );
}
