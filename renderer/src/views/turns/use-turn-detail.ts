import { useEffect, useState } from 'react';
import type { TurnRow, TurnView } from '../../../../shared/turns';
import { getBridge } from '../../bridge/instance';

/**
 * A history row's full record (output tail, summary), fetched with `turns:detail` when the
 * row is chosen and again when the row changes (its result's delivery). Until it lands, or
 * when the host no longer keeps the turn, the row stands in with no tail and its headline.
 */
export function useTurnDetail(row: TurnRow | null): { turn: TurnView | null; loading: boolean } {
  const [fetched, setFetched] = useState<{ row: TurnRow; turn: TurnView | null } | null>(null);
  useEffect(() => {
    if (!row) return;
    let current = true;
    void getBridge()
      .invoke('turns:detail', { id: row.id })
      .then((result) => {
        if (current) setFetched({ row, turn: result.ok ? result.value : null });
      });
    return () => {
      current = false;
    };
  }, [row]);
  if (!row) return { turn: null, loading: false };
  if (fetched?.row === row && fetched.turn)
    return { turn: { ...fetched.turn, ...row, outputTail: fetched.turn.outputTail, summary: fetched.turn.summary }, loading: false };
  const { headline, ...rest } = row;
  return { turn: { ...rest, outputTail: '', summary: headline }, loading: fetched?.row !== row };
}
