import { describe, expect, it } from 'vitest';
import { formatSchedule, fullGrid, nextScheduleChange, parseSchedule, scheduleOpenAt } from '../../shared/lending-schedule';
import { parseSetting } from '../../shared/settings';

describe('the weekly lending schedule', () => {
  it('reads day and hour ranges and writes them back merged, Monday first', () => {
    const grid = parseSchedule('sat 10-12, mon 9-12, mon 12-18')!;
    expect(formatSchedule(grid)).toBe('mon 09-18, sat 10-12');
    expect(parseSchedule('')!.flat().every(Boolean)).toBe(true);
    expect(formatSchedule(fullGrid(false))).toBe('never');
    expect(parseSchedule('never')!.flat().some(Boolean)).toBe(false);
  });

  it('refuses what is not a schedule, with the setting message', () => {
    for (const bad of ['mon 18-09', 'mon 09-25', 'monday 9-18', 'mon', 'mon 9-18,']) expect(parseSchedule(bad)).toBeNull();
    const r = parseSetting('lendSchedule', 'mon 18-09');
    expect(r.ok).toBe(false);
    expect(parseSetting('lendSchedule', ' MON 9-18 ')).toEqual({ ok: true, value: 'mon 09-18' });
  });

  it('is open by local hour and names the next boundary', () => {
    const grid = parseSchedule('mon 09-18')!;
    const mondayMorning = new Date(2026, 11, 7, 8, 30); // a Monday
    expect(scheduleOpenAt(grid, mondayMorning)).toBe(false);
    expect(nextScheduleChange(grid, mondayMorning)).toEqual(new Date(2026, 11, 7, 9, 0));
    expect(scheduleOpenAt(grid, new Date(2026, 11, 7, 17, 59))).toBe(true);
    expect(nextScheduleChange(grid, new Date(2026, 11, 7, 12, 0))).toEqual(new Date(2026, 11, 7, 18, 0));
    expect(nextScheduleChange(grid, new Date(2026, 11, 7, 19, 0))).toEqual(new Date(2026, 11, 14, 9, 0));
    expect(nextScheduleChange(parseSchedule('')!, mondayMorning)).toBeNull();
  });
});
