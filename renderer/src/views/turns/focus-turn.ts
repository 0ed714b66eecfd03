/**
 * After a cancel, the keyboard goes to the canceled turn's row (its list, with the row as
 * the active option), and follows it when it moves from "Running now" to History.
 */
let wanted: string | null = null;
let retry: number | null = null;
/** Frames to wait for a row that is about to appear (History is virtualized: rows come after a measure). */
const MAX_FRAMES = 30;

export function focusTurnRow(id: string): void {
  wanted = id;
  applyTurnFocus();
}

/** Called whenever the turn lists change. */
export function applyTurnFocus(frames = MAX_FRAMES): void {
  if (retry !== null) cancelAnimationFrame(retry);
  retry = null;
  if (!wanted) return;
  const row = document.querySelector(`[role="option"][data-turn-id="${CSS.escape(wanted)}"]`);
  const list = row?.closest('[role="listbox"]');
  if (!(list instanceof HTMLElement)) {
    if (frames > 0) retry = requestAnimationFrame(() => applyTurnFocus(frames - 1));
    return;
  }
  if (document.activeElement !== list) list.focus();
  // In History the turn has ended: nothing more to follow.
  if (list.dataset.testid === 'turn-history') wanted = null;
}
