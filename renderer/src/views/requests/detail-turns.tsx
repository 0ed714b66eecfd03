import { useMemo } from 'react';
import type { RequestDetailView } from '../../../../shared/operator';
import type { TurnRow, TurnView } from '../../../../shared/turns';
import { useHostStore } from '../../store';
import { useNow } from '../use-now';
import { formatWhen, words } from './format-request';

const HISTORY_SHOWN = 20;

/**
 * This runner's turns for the request: live from the host store (every `turns:update`),
 * or from the last detail pull until the store has turns. Shows what the control plane
 * asked on the lease, so a pause or cancel is visible the moment it lands.
 */
export function RequestTurns({ detail }: { detail: RequestDetailView }) {
  const { active, history } = useRequestTurns(detail);

  if (active.length === 0 && history.length === 0) {
    return <p className="req-empty">This runner has not worked on this request.</p>;
  }
  return (
    <div data-testid="request-turns">
      {active.length > 0 ? (
        <ul className="req-list" aria-label="Running on this runner">
          {active.map((t) => (
            <ActiveTurn key={t.id} turn={t} />
          ))}
        </ul>
      ) : null}
      {history.length > 0 ? (
        <ul className="req-list req-history" aria-label="Finished on this runner">
          {history.map((t) => (
            <li key={t.id} className="req-item" data-testid="request-turn-done" data-turn-id={t.id}>
              <span className={`req-state req-state-${t.phase}`}>{words(t.phase)}</span>
              <span className="req-text">
                {turnLabel(t)}
                {t.reason ? <span className="req-muted req-full"> — {t.reason}</span> : null}
              </span>
              <span className="req-muted req-aside">{formatWhen(t.endedAt ?? t.startedAt)}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The request's turns on this runner: the host store's live ones once it has them, else the detail's. */
export function useRequestTurns(detail: RequestDetailView): { active: TurnView[]; history: TurnRow[] } {
  const turns = useHostStore((s) => s.turns);
  const id = detail.request.id;
  return useMemo(() => {
    if (!turns.loaded) return { active: detail.turns.active, history: detail.turns.history };
    return {
      active: turns.active.filter((t) => t.buildRequestId === id),
      history: turns.history.filter((t) => t.buildRequestId === id).slice(0, HISTORY_SHOWN),
    };
  }, [turns, detail.turns, id]);
}

function ActiveTurn({ turn }: { turn: TurnView }) {
  const now = useNow(1000);
  const seconds = Math.max(0, Math.round((now - Date.parse(turn.startedAt)) / 1000));
  const lease =
    turn.lease === 'pause_requested' ? 'Pause requested: finishing this turn' : turn.lease === 'cancel_requested' ? 'Cancel requested: stopping' : null;
  return (
    <li className="req-item req-turn-live" data-testid="request-turn-active" data-turn-id={turn.id}>
      <span className={`req-state req-state-${turn.phase}`}>{words(turn.phase)}</span>
      <span className="req-text">
        {turnLabel(turn)}
        {lease ? (
          <span className="req-lease" data-testid="turn-lease">
            {' '}
            · {lease}
          </span>
        ) : null}
      </span>
      <span className="req-muted">{seconds < 120 ? `${seconds} s` : `${Math.floor(seconds / 60)} min`}</span>
    </li>
  );
}

function turnLabel(t: TurnRow | TurnView): string {
  const kind = t.kind === 'turn_execution' ? 'Turn' : 'Work order';
  const who = t.seat?.name ? ` for ${t.seat.name}` : '';
  return `${kind}${who}${t.runtime ? ` · ${t.runtime}` : ''}`;
}
