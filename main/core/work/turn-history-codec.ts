// The turn history log's lines (turn-history-store.ts keeps the log): how a finished turn is
// written as one line, and how a line's head is read back.
import { z } from 'zod';
import { toTurnRow, TurnRowSchema, type TurnRow, type TurnView } from '../../../shared/turns';
import { leanTurn } from './lean-turn';

/**
 * One line of the log: a head, a tab, the whole record. The head says what the line does
 * (`add` puts a finished turn on top, replacing a row of its id; `set` replaces a row in
 * place) and holds the row's list fields, so loading the log parses the heads only; the
 * record is parsed when it is read. JSON never holds a raw tab, so the first one splits.
 */
export const HeadSchema = z.object({ op: z.enum(['add', 'set']), row: TurnRowSchema });
export type Op = z.infer<typeof HeadSchema>['op'];
export const TAB = 9;

/** The log's text for `turns` (newest first): one `add` line each, oldest first. The bench writes its history with it. */
export function historyLog(turns: readonly TurnView[]): string {
  return [...turns]
    .reverse()
    .map((t) => encodeLine('add', leanTurn(t)))
    .join('');
}

export const ADD = '{"op":"add"';
export const SET = '{"op":"set"';

/** A line of the log: its head (op first), a tab, the whole record. */
export function encodeLine(op: Op, turn: TurnView): string {
  return `${headOf(op, turn)}\t${JSON.stringify(turn)}\n`;
}

export function headOf(op: Op, turn: TurnView): string {
  return JSON.stringify({ op, row: toTurnRow(turn) });
}

export function parseHead(text: string): z.infer<typeof HeadSchema> | null {
  try {
    const head = HeadSchema.safeParse(JSON.parse(text));
    return head.success ? head.data : null;
  } catch {
    return null;
  }
}

/** The fields of a patch the list shows (a new summary's headline waits for the whole record). */
export function rowFields(patch: Partial<TurnView>): Partial<TurnRow> {
  const { outputTail: _tail, summary: _summary, ...rest } = patch;
  return rest;
}
