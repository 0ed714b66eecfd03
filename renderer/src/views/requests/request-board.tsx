import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef } from 'react';
import type { RequestSummaryView } from '../../../../shared/operator';
import { REQUEST_STATUSES, type RequestStatus } from '../../../../shared/protocol';
import { useHostStore } from '../../store';
import { useNow } from '../use-now';
import { CeilingMeters } from './ceiling-meters';
import { RiskChip, StatusChip, Untrusted } from './chips';
import { formatAge, formatStamp, phaseLabel, STATUS_LABEL } from './format-request';
import { loadBoard } from './requests-actions';
import { selectRequest, setFilter, useRequestsStore } from './requests-store';
import { usePolling } from './requests-sync';

const BOARD_EVERY_MS = 5_000;

/** The build requests of the operator's tenant, newest first, with a status filter. */
export function RequestBoard() {
  const board = useRequestsStore((s) => s.board);
  const error = useRequestsStore((s) => s.boardError);
  const filter = useRequestsStore((s) => s.filter);
  const now = useNow(1000);
  usePolling(loadBoard, BOARD_EVERY_MS);

  const counts = useMemo(() => {
    const c: Partial<Record<RequestStatus, number>> = {};
    for (const r of board?.requests ?? []) c[r.status] = (c[r.status] ?? 0) + 1;
    return c;
  }, [board]);
  const shown = useMemo(() => (board?.requests ?? []).filter((r) => filter === 'all' || r.status === filter), [board, filter]);

  return (
    <div className="req-board">
      <div className="req-toolbar">
        <div className="req-filters" role="group" aria-label="Filter by status">
          <FilterButton value="all" label="All" count={board?.requests.length ?? 0} />
          {REQUEST_STATUSES.map((status) => (
            <FilterButton key={status} value={status} label={STATUS_LABEL[status]} count={counts[status] ?? 0} />
          ))}
        </div>
        <button type="button" className="req-button req-button-quiet" onClick={() => void loadBoard()}>
          Refresh
        </button>
      </div>
      {error ? (
        <p className="req-error" role="alert" data-testid="board-error">
          {error.message}
        </p>
      ) : null}
      {!board ? (
        <p className="req-empty">{error ? 'The board could not be loaded.' : 'Loading build requests…'}</p>
      ) : shown.length === 0 ? (
        <p className="req-empty">{filter === 'all' ? 'No build requests in this tenant yet.' : `No ${STATUS_LABEL[filter].toLowerCase()} requests.`}</p>
      ) : (
        <div className="req-table" role="table" aria-label="Build requests" aria-rowcount={shown.length + 1} data-testid="request-board">
          <div className="req-row req-row-head" role="row">
            <span role="columnheader">Request</span>
            <span role="columnheader">Status</span>
            <span role="columnheader">Phase</span>
            <span role="columnheader">Risk</span>
            <span role="columnheader">Ceilings</span>
            <span role="columnheader">Age</span>
          </div>
          <BoardRows shown={shown} now={now} />
        </div>
      )}
    </div>
  );
}

/** A row's height before it is measured: two title lines beside three compact ceilings. */
const ROW_ESTIMATE_PX = 62;

/**
 * The rows, virtualized: 1,000 requests cost the DOM only the rows in view (and a few
 * either side, so Tab reaches the next row's button and the browser scrolls it in).
 * Rows differ in height (a title wraps, badges), so each is measured once drawn.
 */
function BoardRows({ shown, now }: { shown: RequestSummaryView[]; now: number }) {
  const here = useWorkingHere();
  const handoffs = useRequestsStore((s) => s.handoffs);
  const scrollRef = useRef<HTMLDivElement>(null);
  // oxlint-disable-next-line react/incompatible-library -- only says the React Compiler would skip this component; we do not use the compiler.
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_ESTIMATE_PX,
    overscan: 2,
    getItemKey: (index) => shown[index]!.id,
  });
  return (
    <div ref={scrollRef} className="req-scroll" role="rowgroup" data-testid="request-board-scroll">
      <div className="vlist-sizer" role="presentation" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const r = shown[item.index]!;
          return (
            <BoardRow
              key={item.key}
              request={r}
              runningHere={here.get(r.id) ?? 0}
              awaiting={Boolean(handoffs[r.id])}
              now={now}
              index={item.index}
              start={item.start}
              measure={virtualizer.measureElement}
            />
          );
        })}
      </div>
    </div>
  );
}

function FilterButton({ value, label, count }: { value: RequestStatus | 'all'; label: string; count: number }) {
  const active = useRequestsStore((s) => s.filter === value);
  return (
    <button type="button" className="req-filter" aria-pressed={active} onClick={() => setFilter(value)} data-testid={`filter-${value}`}>
      {label} <span className="req-count">{count}</span>
    </button>
  );
}

interface BoardRowProps {
  request: RequestSummaryView;
  runningHere: number;
  awaiting: boolean;
  now: number;
  index: number;
  start: number;
  measure: (element: Element | null) => void;
}

function BoardRow({ request: r, runningHere, awaiting, now, index, start, measure }: BoardRowProps) {
  return (
    <div
      ref={measure}
      data-index={index}
      className={runningHere > 0 ? 'req-row req-row-here req-row-virtual' : 'req-row req-row-virtual'}
      style={{ transform: `translateY(${start}px)` }}
      role="row"
      aria-rowindex={index + 2}
      data-testid="request-row"
      data-request-id={r.id}
      onClick={() => selectRequest(r.id)}
    >
      <span role="cell" className="req-cell-title">
        {/* The row takes the click; the button gives keyboard users the same way in. */}
        <button type="button" className="req-title-button">
          <Untrusted text={r.title} className="req-title req-clamp-2" />
        </button>
        {runningHere > 0 || awaiting ? (
          <span className="req-badges">
            {runningHere > 0 ? (
              <span className="req-badge req-badge-here" data-testid="running-here">
                Running here{runningHere > 1 ? ` · ${runningHere}` : ''}
              </span>
            ) : null}
            {awaiting ? <span className="req-badge req-badge-wait">Awaiting confirmation</span> : null}
          </span>
        ) : null}
      </span>
      <span role="cell">
        <StatusChip status={r.status} />
      </span>
      <span role="cell" className="req-phase">
        {phaseLabel(r.currentPhase)}
      </span>
      <span role="cell">
        <RiskChip risk={r.risk} />
      </span>
      <span role="cell">
        <CeilingMeters request={r} now={now} compact />
      </span>
      <span role="cell" className="req-age" title={`Created ${formatStamp(r.createdAt)}`}>
        {formatAge(r.createdAt, now)}
      </span>
    </div>
  );
}

/**
 * Requests this runner works on right now, live: the host store's active turns when it
 * has them (they change on every `turns:update`), else what the last board pull said.
 */
export function useWorkingHere(): Map<string, number> {
  const turns = useHostStore((s) => s.turns);
  const fromBoard = useRequestsStore((s) => s.board?.activeHere);
  return useMemo(() => {
    const counts = new Map<string, number>();
    const pairs = turns.loaded ? turns.active.flatMap((t) => (t.buildRequestId ? [t.buildRequestId] : [])) : (fromBoard ?? []).map((t) => t.buildRequestId);
    for (const id of pairs) counts.set(id, (counts.get(id) ?? 0) + 1);
    return counts;
  }, [turns, fromBoard]);
}
