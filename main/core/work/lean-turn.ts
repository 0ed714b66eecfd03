import type { TurnView } from '../../../shared/turns';

/** A finished turn keeps only the end of its output, in memory and on disk: rows stay small enough to page. */
export const PERSISTED_TAIL_CHARS = 1_000;

export function leanTurn(turn: TurnView): TurnView {
  if (turn.outputTail.length <= PERSISTED_TAIL_CHARS) return turn;
  return { ...turn, outputTail: detached(turn.outputTail.slice(-PERSISTED_TAIL_CHARS)) };
}

/**
 * A copy that does not point into the string it was cut from: V8 keeps a slice as a view
 * of its parent, so a 1 kB tail of a 100 kB output would keep the 100 kB alive.
 */
function detached(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
