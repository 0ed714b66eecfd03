// The weekly lending schedule: the hours of the week, in the machine's own time zone, in
// which a runner may take new work. Stored as one normalized text setting
// (`mon 09-18, sat 10-12`; empty: any time; `never`: no hour at all) so the settings file,
// the flags and the window edit the same value; the window shows it as a 7 × 24 grid.

export const SCHEDULE_DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type ScheduleDay = (typeof SCHEDULE_DAYS)[number];
export const SCHEDULE_DAY_NAMES: Readonly<Record<ScheduleDay, string>> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};

/** `grid[day][hour]`: day 0 is Monday, hour 0–23 local time; true where work may be taken. */
export type WeekGrid = boolean[][];

const RANGE = /^(mon|tue|wed|thu|fri|sat|sun)\s+(\d{1,2})\s*-\s*(\d{1,2})$/;

export function fullGrid(value = true): WeekGrid {
  return SCHEDULE_DAYS.map(() => Array.from({ length: 24 }, () => value));
}

/** The grid a schedule text describes, or null when it is not one. */
export function parseSchedule(text: string): WeekGrid | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === '') return fullGrid(true);
  if (trimmed === 'never') return fullGrid(false);
  const grid = fullGrid(false);
  for (const part of trimmed.split(',')) {
    const m = RANGE.exec(part.trim());
    if (!m) return null;
    const day = SCHEDULE_DAYS.indexOf(m[1] as ScheduleDay);
    const from = Number(m[2]);
    const to = Number(m[3]);
    if (from < 0 || to > 24 || from >= to) return null;
    for (let h = from; h < to; h++) grid[day]![h] = true;
  }
  return grid;
}

const two = (n: number) => String(n).padStart(2, '0');

/** The normalized text of a grid: each day's runs of hours merged, Monday first. */
export function formatSchedule(grid: WeekGrid): string {
  if (grid.every((hours) => hours.every(Boolean))) return '';
  if (grid.every((hours) => hours.every((h) => !h))) return 'never';
  const parts: string[] = [];
  grid.forEach((hours, day) => {
    for (let h = 0; h < 24; h++) {
      if (!hours[h]) continue;
      const start = h;
      while (h < 24 && hours[h]) h++;
      parts.push(`${SCHEDULE_DAYS[day]} ${two(start)}-${two(h)}`);
    }
  });
  return parts.join(', ');
}

/** Monday-first day index of a local date. */
export function dayIndex(at: Date): number {
  return (at.getDay() + 6) % 7;
}

/** Whether work may be taken at `at` (local time). */
export function scheduleOpenAt(grid: WeekGrid, at: Date): boolean {
  return grid[dayIndex(at)]![at.getHours()] === true;
}

/**
 * The next local hour boundary after `now` at which the schedule opens or closes, or null
 * when it never changes (any time, never). Walks whole local hours, so a daylight-saving
 * change moves the boundary with the clock.
 */
export function nextScheduleChange(grid: WeekGrid, now: Date): Date | null {
  const open = scheduleOpenAt(grid, now);
  const at = new Date(now.getTime());
  at.setMinutes(0, 0, 0);
  for (let i = 0; i < 24 * 8; i++) {
    at.setHours(at.getHours() + 1);
    if (scheduleOpenAt(grid, at) !== open) return new Date(at.getTime());
  }
  return null;
}
