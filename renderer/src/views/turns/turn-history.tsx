import { useNow } from '../use-now';
import { useVirtualizer, type VirtualItem } from '@tanstack/react-virtual';
import { useCallback, useEffect, useId, useRef } from 'react';
import type { ProfileSummary } from '../../../../shared/profiles';
import type { TurnRow } from '../../../../shared/turns';
import { getBridge } from '../../bridge/instance';
import { loadMoreHistory } from '../../store/sync';
import { useHostStore } from '../../store';
import { formatClock, formatCount } from '../format';
import { profileName } from '../profiles/profile-text';
import { deliveryText, elapsed, PHASE_LABELS, seatLabel } from './turn-text';
import { listboxKeyHandler } from './use-listbox-keys';

export const HISTORY_ROW_HEIGHT = 30;

/**
 * Finished turns, newest first: outcome, when, seat, duration and the summary's first
 * line. Virtualized, so 10,000 of them cost the DOM only the rows in view, and paged:
 * the list is as long as the host's history, and the next window of rows is fetched
 * when the end of those held scrolls into view (a placeholder row shows until it lands).
 */
export function TurnHistory({ selectedId, onSelect }: { selectedId: string | null; onSelect: (id: string) => void }) {
  const history = useHostStore((s) => s.turns.history);
  const total = useHostStore((s) => Math.max(s.turns.historyTotal, s.turns.history.length));
  const loaded = useHostStore((s) => s.turns.loaded);
  // With several profiles the list mixes them: each row says whose it is.
  const profiles = useHostStore((s) => (s.profiles.length > 1 ? s.profiles : null));
  const listId = useId();
  const scrollRef = useRef<HTMLDivElement>(null);
  // A new key function makes the list measure all its rows again (10,000 on a full
  // history): only when the rows change, not on every running turn's output.
  const itemKey = useCallback((index: number) => history[index]?.id ?? index, [history]);
  // oxlint-disable-next-line react/incompatible-library -- only says the React Compiler would skip this component; we do not use the compiler.
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => HISTORY_ROW_HEIGHT,
    overscan: 8,
    getItemKey: itemKey,
  });
  const index = selectedId ? history.findIndex((t) => t.id === selectedId) : -1;
  const items = virtualizer.getVirtualItems();
  const lastInView = items.length > 0 ? items[items.length - 1]!.index : -1;

  // The rows in view reach past those held: fetch the next window.
  useEffect(() => {
    if (lastInView >= history.length - 1 && history.length < total) void loadMoreHistory(getBridge(), lastInView);
  }, [lastInView, history.length, total]);

  // Keep the chosen row in view when keys move the choice.
  useEffect(() => {
    if (index >= 0) virtualizer.scrollToIndex(index, { align: 'auto' });
  }, [index, virtualizer]);

  return (
    <section className="card turns-history" aria-labelledby={`${listId}-title`}>
      <h2 id={`${listId}-title`}>History{total > 0 ? ` (${formatCount(total)})` : ''}</h2>
      {total === 0 && !loaded ? (
        <p className="empty" data-testid="history-loading">
          Loading the history…
        </p>
      ) : total === 0 ? (
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
            {items.map((item) => (
              <HistoryOption
                key={item.key}
                item={item}
                turn={history[item.index]}
                listId={listId}
                selected={history[item.index]?.id === selectedId}
                total={total}
                profiles={profiles}
                onSelect={onSelect}
              />
            ))}
          </div>
        </div>
      )}
    </section>
  );
}

interface OptionProps {
  item: VirtualItem;
  /** Absent while its window of rows is being fetched. */
  turn: TurnRow | undefined;
  listId: string;
  selected: boolean;
  total: number;
  profiles: readonly ProfileSummary[] | null;
  onSelect: (id: string) => void;
}

/** One placed row of the list: a finished turn, or a placeholder until its page lands. */
function HistoryOption({ item, turn, listId, selected, total, profiles, onSelect }: OptionProps) {
  if (!turn) {
    return (
      <div
        role="presentation"
        className="turn-row turn-row-history turn-row-pending"
        data-testid="history-row-pending"
        style={{ transform: `translateY(${item.start}px)`, height: HISTORY_ROW_HEIGHT }}
      >
        Loading…
      </div>
    );
  }
  return (
    <div
      id={`${listId}-${turn.id}`}
      role="option"
      aria-selected={selected}
      aria-posinset={item.index + 1}
      aria-setsize={total}
      className={profiles ? 'turn-row turn-row-history turn-row-profiles' : 'turn-row turn-row-history'}
      data-testid="history-row"
      data-turn-id={turn.id}
      style={{ transform: `translateY(${item.start}px)`, height: HISTORY_ROW_HEIGHT }}
      onClick={() => onSelect(turn.id)}
    >
      <HistoryRow turn={turn} profile={profiles ? profileName(profiles, turn.profile) : null} />
    </div>
  );
}

function HistoryRow({ turn, profile }: { turn: TurnRow; profile: string | null }) {
  return (
    <>
      <span className={`badge badge-${turn.phase}`}>{PHASE_LABELS[turn.phase]}</span>
      <span className="turn-when">{formatClock(turn.endedAt ?? turn.startedAt)}</span>
      <span className="turn-seat">{seatLabel(turn)}</span>
      {profile !== null ? (
        <span className="turn-profile" data-testid="turn-profile">
          {profile}
        </span>
      ) : null}
      <span className="turn-elapsed">{elapsed(turn, Date.parse(turn.endedAt ?? turn.startedAt))}</span>
      <span className="turn-summary">
        <DeliveryNote turn={turn} />
        {turn.headline ?? ''}
      </span>
    </>
  );
}

/**
 * Only what needs attention goes in a row: a result waiting, refused or late. Only a
 * waiting result's note counts time, so only its row follows the clock (not 10,000).
 */
function DeliveryNote({ turn }: { turn: TurnRow }) {
  return turn.delivery?.state === 'waiting' ? <WaitingNote turn={turn} /> : <NoteText note={deliveryText(turn, 0)} />;
}

function WaitingNote({ turn }: { turn: TurnRow }) {
  const now = useNow(1000);
  return <NoteText note={deliveryText(turn, now)} />;
}

function NoteText({ note }: { note: ReturnType<typeof deliveryText> }) {
  if (!note || note.tone === 'quiet') return null;
  return (
    <span className={note.tone === 'error' ? 'delivery-note error-text' : 'delivery-note warn-text'} data-testid="delivery-note">
      {note.text} ·{' '}
    </span>
  );
}
