import type { TranscriptLine, TranscriptUpdate, TranscriptView } from '../../../shared/transcript';

/**
 * The live transcripts of the running turns, as the host streams them (`turns:transcript`).
 * Each keeps at most TRANSCRIPT_WINDOW_LINES of its newest lines (the host has the rest);
 * a turn's transcript leaves when the turn does (a finished turn's is asked for again).
 */
export interface TurnTranscript {
  /** Sorted by number, one copy each (an open line replaced as it grows). */
  lines: TranscriptLine[];
  /** Lines before the first one here: dropped to bound the window, or sent past it. */
  earlier: number;
}
export type TranscriptsSlice = Readonly<Record<string, TurnTranscript>>;

export const TRANSCRIPT_WINDOW_LINES = 5_000;
export const initialTranscripts: TranscriptsSlice = {};

/** `lines` merged into `into` (both sorted): new numbers appended or put in place, known ones replaced. */
export function mergeLines(into: readonly TranscriptLine[], lines: readonly TranscriptLine[]): TranscriptLine[] {
  const out = into.slice();
  for (const line of lines) {
    const last = out[out.length - 1];
    if (!last || line.n > last.n) {
      out.push(line);
      continue;
    }
    let lo = 0;
    let hi = out.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (out[mid]!.n < line.n) lo = mid + 1;
      else hi = mid;
    }
    if (out[lo]?.n === line.n) out[lo] = line;
    else out.splice(lo, 0, line);
  }
  return out;
}

function bounded(turn: TurnTranscript): TurnTranscript {
  const over = turn.lines.length - TRANSCRIPT_WINDOW_LINES;
  if (over <= 0) return turn;
  return { lines: turn.lines.slice(over), earlier: turn.earlier + over };
}

export function applyTranscriptUpdates(slice: TranscriptsSlice, updates: readonly TranscriptUpdate[]): TranscriptsSlice {
  if (updates.length === 0) return slice;
  const next: Record<string, TurnTranscript> = { ...slice };
  for (const update of updates) {
    const held = next[update.id] ?? { lines: [], earlier: 0 };
    next[update.id] = bounded({ lines: mergeLines(held.lines, update.lines), earlier: held.earlier + update.skipped });
  }
  return next;
}

/** What `turns:transcript` answered, merged with what streamed meanwhile. */
export function withTranscriptView(slice: TranscriptsSlice, view: TranscriptView): TranscriptsSlice {
  const held = slice[view.id];
  const lines = mergeLines(view.lines, held?.lines ?? []);
  return { ...slice, [view.id]: bounded({ lines, earlier: lines[0] && lines[0].n >= view.earlier ? view.earlier : 0 }) };
}

/** Transcripts of turns no longer running go (the history view asks for a finished turn's). */
export function keepRunning(slice: TranscriptsSlice, gone: readonly string[]): TranscriptsSlice {
  if (!gone.some((id) => id in slice)) return slice;
  const next = { ...slice };
  for (const id of gone) delete next[id];
  return next;
}
