import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { fullGrid, SCHEDULE_DAY_NAMES, SCHEDULE_DAYS, type WeekGrid } from '../../../../shared/lending-schedule';
import { dayName } from './schedule-text';

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const two = (n: number) => String(n).padStart(2, '0');

/** "Monday 09:00–10:00, lending": what a screen reader says for one cell. */
export function cellName(day: number, hour: number, open: boolean): string {
  return `${SCHEDULE_DAY_NAMES[SCHEDULE_DAYS[day]!]} ${two(hour)}:00–${two(hour + 1)}:00, ${open ? 'lending' : 'not lending'}`;
}

function painted(grid: WeekGrid, day: number, hour: number, value: boolean): WeekGrid {
  if (grid[day]![hour] === value) return grid;
  return grid.map((hours, d) => (d === day ? hours.map((h, i) => (i === hour ? value : h)) : hours));
}

/** Where an arrow, Home or End moves the focus from a cell (Ctrl+Home/End: the first or last cell of the week), or null for another key. */
function moveOf(event: KeyboardEvent, day: number, hour: number): [number, number] | null {
  const ctrl = event.ctrlKey || event.metaKey;
  switch (event.key) {
    case 'ArrowRight':
      return [day, Math.min(23, hour + 1)];
    case 'ArrowLeft':
      return [day, Math.max(0, hour - 1)];
    case 'ArrowDown':
      return [Math.min(6, day + 1), hour];
    case 'ArrowUp':
      return [Math.max(0, day - 1), hour];
    case 'Home':
      return ctrl ? [0, 0] : [day, 0];
    case 'End':
      return ctrl ? [6, 23] : [day, 23];
    default:
      return null;
  }
}

/** The grid's edits: set one hour, and a drag that paints the hours it crosses with the value its first cell got. */
function usePainting(shown: WeekGrid, readOnly: boolean, onChange: (grid: WeekGrid) => void) {
  // While the pointer is down: the value painted and the grid painted on, so a fast drag never reads a stale prop.
  const paint = useRef<{ value: boolean; grid: WeekGrid } | null>(null);
  useEffect(() => {
    const end = () => {
      paint.current = null;
    };
    window.addEventListener('pointerup', end);
    window.addEventListener('pointercancel', end);
    return () => {
      window.removeEventListener('pointerup', end);
      window.removeEventListener('pointercancel', end);
    };
  }, []);
  const set = (day: number, hour: number, value: boolean) => {
    if (readOnly) return;
    const base = paint.current?.grid ?? shown;
    const next = painted(base, day, hour, value);
    if (paint.current) paint.current.grid = next;
    if (next !== base) onChange(next);
  };
  const start = (event: PointerEvent<HTMLDivElement>, day: number, hour: number) => {
    if (event.button !== 0 || readOnly) return;
    // A touch captures the pointer to the first cell: release it so the cells crossed hear it.
    if (event.currentTarget.hasPointerCapture?.(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId);
    const value = !shown[day]![hour];
    paint.current = { value, grid: shown };
    set(day, hour, value);
  };
  const cross = (day: number, hour: number) => {
    if (paint.current) set(day, hour, paint.current.value);
  };
  return { set, start, cross };
}

/** The roving Tab stop: which cell has it, and moving the focus there after a key moved it. */
function useRovingFocus() {
  const [focus, setFocus] = useState<[number, number]>([0, 9]);
  const cells = useRef(new Map<string, HTMLDivElement>());
  const moved = useRef(false);
  useEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    cells.current.get(`${focus[0]}:${focus[1]}`)?.focus();
  }, [focus]);
  const moveTo = (to: [number, number]) => {
    moved.current = true;
    setFocus(to);
  };
  const focused = (day: number, hour: number) => setFocus((current) => (current[0] === day && current[1] === hour ? current : [day, hour]));
  const refOf = (day: number, hour: number) => (el: HTMLDivElement | null) => {
    if (el) cells.current.set(`${day}:${hour}`, el);
    else cells.current.delete(`${day}:${hour}`);
  };
  return { focus, moveTo, focused, refOf };
}

/**
 * The week as an ARIA grid, 7 rows (Monday first) × 24 hours: one cell takes the Tab stop
 * (roving tabindex), the arrows, Home and End move it, Space or Enter toggles the hour; a
 * click toggles and a drag paints the hours it crosses with the first cell's new value.
 */
export function ScheduleGrid({
  grid,
  readOnly,
  describedBy,
  onChange,
}: {
  grid: WeekGrid | null;
  readOnly: boolean;
  describedBy?: string;
  onChange: (grid: WeekGrid) => void;
}) {
  const shown = grid ?? fullGrid(false);
  const { set, start, cross } = usePainting(shown, readOnly, onChange);
  const roving = useRovingFocus();
  const onKey = (event: KeyboardEvent<HTMLDivElement>, day: number, hour: number) => {
    if (event.key === ' ' || event.key === 'Enter') {
      event.preventDefault();
      set(day, hour, !shown[day]![hour]);
      return;
    }
    const to = moveOf(event, day, hour);
    if (!to) return;
    event.preventDefault();
    roving.moveTo(to);
  };
  return (
    <div className="schedule-scroll">
      <div
        role="grid"
        className="schedule-grid"
        aria-label="Lending hours of the week"
        aria-describedby={describedBy}
        aria-readonly={readOnly || undefined}
        aria-multiselectable="true"
        data-testid="schedule-grid"
      >
        <HeadRow />
        {SCHEDULE_DAYS.map((key, day) => (
          <div key={key} role="row" className="schedule-row">
            <span role="rowheader" className="schedule-day" aria-label={SCHEDULE_DAY_NAMES[key]}>
              {dayName(day)}
            </span>
            {HOURS.map((hour) => {
              const open = shown[day]![hour] === true;
              return (
                <div
                  key={hour}
                  ref={roving.refOf(day, hour)}
                  role="gridcell"
                  className={`schedule-cell${open ? ' on' : ''}`}
                  tabIndex={roving.focus[0] === day && roving.focus[1] === hour ? 0 : -1}
                  aria-selected={open}
                  aria-label={cellName(day, hour, open)}
                  data-testid={`schedule-cell-${day}-${hour}`}
                  onKeyDown={(event) => onKey(event, day, hour)}
                  onFocus={() => roving.focused(day, hour)}
                  onPointerDown={(event) => start(event, day, hour)}
                  onPointerEnter={() => cross(day, hour)}
                />
              );
            })}
          </div>
        ))}
      </div>
    </div>
  );
}

function HeadRow() {
  return (
    <div role="row" className="schedule-row schedule-head">
      <span role="columnheader" className="schedule-corner">
        <span className="sr-only">Day</span>
      </span>
      {HOURS.map((hour) => (
        <span key={hour} role="columnheader" className="schedule-hour" aria-label={`${two(hour)}:00`}>
          {two(hour)}
        </span>
      ))}
    </div>
  );
}
