import type { TurnView } from '../../../shared/turns';

/** A finished turn keeps only the end of its output, in memory and on disk: rows stay small enough to page. */
export const PERSISTED_TAIL_CHARS = 1_000;

export function leanTurn(turn: TurnView): TurnView {
  return turn.outputTail.length > PERSISTED_TAIL_CHARS ? { ...turn, outputTail: turn.outputTail.slice(-PERSISTED_TAIL_CHARS) } : turn;
}
