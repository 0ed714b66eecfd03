import { formatSchedule, fullGrid, parseSchedule, SCHEDULE_DAYS, type WeekGrid } from '../../../../shared/lending-schedule';

/**
 * The Schedule card's words: its presets (each the exact `lendSchedule` text it sets) and
 * the one-line summary of a grid ("Mon–Fri 18:00–09:00, Sat–Sun all day").
 */
const SHORT_DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

function gridOf(open: (day: number, hour: number) => boolean): WeekGrid {
  return SCHEDULE_DAYS.map((_, day) => Array.from({ length: 24 }, (_h, hour) => open(day, hour)));
}

export const SCHEDULE_PRESETS: ReadonlyArray<{ label: string; text: string }> = [
  { label: 'Any time', text: formatSchedule(fullGrid(true)) },
  { label: 'Nights and weekends', text: formatSchedule(gridOf((day, hour) => day >= 5 || hour < 9 || hour >= 18)) },
  { label: 'Working hours', text: formatSchedule(gridOf((day, hour) => day < 5 && hour >= 9 && hour < 18)) },
  { label: 'Never', text: formatSchedule(fullGrid(false)) },
];

const clock = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

/** One day's open hours in words: "all day", "09:00–18:00", an overnight "18:00–09:00", or null when closed. */
function dayWords(hours: boolean[]): string | null {
  const runs: Array<[number, number]> = [];
  for (let h = 0; h < 24; h++) {
    if (!hours[h]) continue;
    const start = h;
    while (h < 24 && hours[h]) h++;
    runs.push([start, h]);
  }
  if (runs.length === 0) return null;
  if (runs.length === 1 && runs[0]![0] === 0 && runs[0]![1] === 24) return 'all day';
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  // The evening and the early morning of one day read as one night: "18:00–09:00".
  if (runs.length === 2 && first[0] === 0 && last[1] === 24) return `${clock(last[0])}–${clock(first[1])}`;
  return runs.map(([from, to]) => `${clock(from)}–${clock(to)}`).join(' and ');
}

/** The schedule in words, neighbouring days alike merged; the normalized text when it is not a schedule. */
export function scheduleSummary(text: string): string {
  const grid = parseSchedule(text);
  if (!grid) return text;
  if (grid.every((hours) => hours.every(Boolean))) return 'Any time';
  if (grid.every((hours) => hours.every((h) => !h))) return 'Never';
  const words = grid.map(dayWords);
  const parts: string[] = [];
  for (let day = 0; day < 7; day++) {
    const said = words[day];
    if (said === null || said === undefined) continue;
    let end = day;
    while (end + 1 < 7 && words[end + 1] === said) end++;
    const days = end === day ? SHORT_DAYS[day] : `${SHORT_DAYS[day]}–${SHORT_DAYS[end]}`;
    parts.push(`${days} ${said}`);
    day = end;
  }
  return parts.join(', ');
}

export function dayName(day: number): string {
  return SHORT_DAYS[day] ?? '';
}
