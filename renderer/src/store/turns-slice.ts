import { HISTORY_LIMIT, type TurnsSnapshot, type TurnsUpdate, type TurnView } from '../../../shared/turns';

export interface TurnsSlice {
  /** In the order the host first reported them. */
  active: TurnView[];
  /** Newest first, at most HISTORY_LIMIT. */
  history: TurnView[];
  loaded: boolean;
}

export const initialTurns: TurnsSlice = { active: [], history: [], loaded: false };

export function turnsFromSnapshot(snapshot: TurnsSnapshot): TurnsSlice {
  return { active: snapshot.active, history: snapshot.history.slice(0, HISTORY_LIMIT), loaded: true };
}

/**
 * Applies one batch of changes. A turn that finished may also be in a `turns:list`
 * answer that raced the event, so finished turns replace any copy already in history.
 */
export function applyTurnsUpdate(slice: TurnsSlice, update: TurnsUpdate): TurnsSlice {
  let { active, history } = slice;
  if (update.active.length > 0 || update.removed.length > 0) {
    const byId = new Map(active.map((t) => [t.id, t]));
    for (const turn of update.active) byId.set(turn.id, turn);
    for (const id of update.removed) byId.delete(id);
    active = [...byId.values()];
  }
  if (update.finished.length > 0) {
    const ids = new Set(update.finished.map((t) => t.id));
    const newest = [...update.finished].reverse();
    history = newest.concat(history.filter((t) => !ids.has(t.id)));
    if (history.length > HISTORY_LIMIT) history = history.slice(0, HISTORY_LIMIT);
    active = active.filter((t) => !ids.has(t.id));
  }
  if (update.updated && update.updated.length > 0) {
    const byId = new Map(update.updated.map((t) => [t.id, t]));
    history = history.map((t) => byId.get(t.id) ?? t);
  }
  if (active === slice.active && history === slice.history) return slice;
  return { ...slice, active, history };
}
