import { useNow } from '../use-now';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useId, useRef } from 'react';
import type { TurnView } from '../../../../shared/turns';
import { useHostStore } from '../../store';
import { formatClock, formatCount } from '../format';
import { deliveryText, elapsed, firstLine, PHASE_LABELS, seatLabel } from './turn-text';
import { listboxKeyHandler } from './use-listbox-keys';

export const HISTORY_ROW_HEIGHT = 30;

/**
 * Finished turns, newest first: outcome, when, seat, duration and summary. Virtualized,
 * so 10,000 of them cost the DOM only the rows in view.
 */
export function TurnHistory({ selectedId, onSelect }: { selectedId: string | null; onSelect: (id: string) => void }) {
  const history = useHostStore((s) => s.turns.history);
  const listId = useId();
  const scrollRef = useRef<HTMLDivElement>(null);
  // oxlint-disable-next-line react/incompatible-library -- only says the React Compiler would skip this component; we do not use the compiler.
  const virtualizer = useVirtualizer({
    count: history.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => HISTORY_ROW_HEIGHT,
    overscan: 8,
    getItemKey: (index) => history[index]?.id ?? index,
  });
  const index = selectedId ? history.findIndex((t) => t.id === selectedId) : -1;

  // Keep the chosen row in view when keys move the choice.
  useEffect(() => {
    if (index >= 0) virtualizer.scrollToIndex(index, { align: 'auto' });
  }, [index, virtualizer]);

  return (
    <section className="card turns-history" aria-labelledby={`${listId}-title`}>
      <h2 id={`${listId}-title`}>History{history.length > 0 ? ` (${formatCount(history.length)})` : ''}</h2>
      {history.length === 0 ? (
        <p className="empty" data-testid="history-empty">
          No finished turns yet. Each turn lands here when it ends, with its outcome and summary.
        </p>
      ) : (
        <div
          ref={scrollRef}
          className="listbox vlist"
          role="listbox"
          tabIndex={0}
          aria-labelledby={`${listId}-title`}
          aria-activedescendant={index >= 0 ? `${listId}-${history[index]!.id}` : undefined}
          data-testid="turn-history"
          onKeyDown={listboxKeyHandler({ count: history.length, index, select: (i) => onSelect(history[i]!.id) })}
        >
          <div className="vlist-sizer" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
            {virtualizer.getVirtualItems().map((item) => {
              const turn = history[item.index]!;
              return (
                <div
                  key={item.key}
                  id={`${listId}-${turn.id}`}
                  role="option"
                  aria-selected={turn.id === selectedId}
                  aria-posinset={item.index + 1}
                  aria-setsize={history.length}
                  className="turn-row turn-row-history"
                  data-testid="history-row"
                  data-turn-id={turn.id}
                  style={{ transform: `translateY(${item.start}px)`, height: HISTORY_ROW_HEIGHT }}
                  onClick={() => onSelect(turn.id)}
                >
                  <HistoryRow turn={turn} />
                </div>
              );
            })}
          </div>
        </div>
      )}
    </section>
  );
}

function HistoryRow({ turn }: { turn: TurnView }) {
  return (
    <>
      <span className={`badge badge-${turn.phase}`}>{PHASE_LABELS[turn.phase]}</span>
      <span className="turn-when">{formatClock(turn.endedAt ?? turn.startedAt)}</span>
      <span className="turn-seat">{seatLabel(turn)}</span>
      <span className="turn-elapsed">{elapsed(turn, Date.parse(turn.endedAt ?? turn.startedAt))}</span>
      <span className="turn-summary">
        <DeliveryNote turn={turn} />
        {firstLine(turn.summary ?? turn.reason)}
      </span>
    </>
  );
}

/** Only what needs attention goes in a row: a result waiting, refused or late. */
function DeliveryNote({ turn }: { turn: TurnView }) {
  const now = useNow(1000);
  const note = deliveryText(turn, now);
  if (!note || note.tone === 'quiet') return null;
  return (
    <span className={note.tone === 'error' ? 'delivery-note error-text' : 'delivery-note warn-text'} data-testid="delivery-note">
      {note.text} ·{' '}
    </span>
  );
}
