import { HISTORY_LIMIT, toTurnRow, type TurnRow, type TurnsPage, type TurnsUpdate, type TurnView } from '../../../shared/turns';

export interface TurnsSlice {
  /** In the order the host first reported them. */
  active: TurnView[];
  /** The newest history rows fetched so far (a prefix of the host's history), newest first. */
  history: TurnRow[];
  /** How many rows the host's history holds (the list's length; rows past `history` are fetched on scroll). */
  historyTotal: number;
  loaded: boolean;
}

export const initialTurns: TurnsSlice = { active: [], history: [], historyTotal: 0, loaded: false };

/** The first page: replaces what the window had (a reconnect starts the history over). */
export function turnsFromPage(page: TurnsPage): TurnsSlice {
  return { active: page.active, history: page.history.slice(0, HISTORY_LIMIT), historyTotal: page.total, loaded: true };
}

/**
 * A later page, fetched as the list scrolls: appended when it starts where the fetched
 * rows end (rows that finished since then moved it down; copies already held are skipped).
 */
export function appendHistoryPage(slice: TurnsSlice, page: TurnsPage): TurnsSlice {
  if (!slice.loaded || page.offset > slice.history.length) return slice;
  const held = new Set(slice.history.map((t) => t.id));
  const more = page.history.filter((t) => !held.has(t.id));
  if (more.length === 0 && page.total === slice.historyTotal) return slice;
  const history = more.length > 0 ? slice.history.concat(more).slice(0, HISTORY_LIMIT) : slice.history;
  return { ...slice, history, historyTotal: Math.max(page.total, history.length) };
}

/**
 * Applies one batch of changes. A turn that finished may also be in a `turns:list`
 * answer that raced the event, so finished turns replace any copy already in history
 * (and are counted once).
 */
export function applyTurnsUpdate(slice: TurnsSlice, update: TurnsUpdate): TurnsSlice {
  let { active, history, historyTotal } = slice;
  if (update.active.length > 0 || update.removed.length > 0) {
    const byId = new Map(active.map((t) => [t.id, t]));
    for (const turn of update.active) byId.set(turn.id, turn);
    for (const id of update.removed) byId.delete(id);
    active = [...byId.values()];
  }
  if (update.finished.length > 0) {
    const ids = new Set(update.finished.map((t) => t.id));
    const kept = history.filter((t) => !ids.has(t.id));
    const newest = [...update.finished].reverse().map(toTurnRow);
    historyTotal = Math.min(HISTORY_LIMIT, historyTotal + (ids.size - (history.length - kept.length)));
    history = newest.concat(kept);
    if (history.length > HISTORY_LIMIT) history = history.slice(0, HISTORY_LIMIT);
    historyTotal = Math.max(historyTotal, history.length);
    active = active.filter((t) => !ids.has(t.id));
  }
  if (update.updated && update.updated.length > 0) {
    const byId = new Map(update.updated.map((t) => [t.id, t]));
    history = history.map((t) => {
      const next = byId.get(t.id);
      return next ? toTurnRow(next) : t;
    });
  }
  if (active === slice.active && history === slice.history && historyTotal === slice.historyTotal) return slice;
  return { ...slice, active, history, historyTotal };
}
