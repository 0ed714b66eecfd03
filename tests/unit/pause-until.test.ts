import { afterEach, describe, expect, it } from 'vitest';
import { minutesUntilMorning, untilMorningLabel } from '../../shared/pause-until';

const zone = process.env.TZ;
afterEach(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('pause until 9:00', () => {
  it('counts to tomorrow 9:00 after 9:00, and to today 9:00 between midnight and 9:00', () => {
    process.env.TZ = 'Europe/Berlin';
    const evening = new Date(2026, 11, 7, 22, 30);
    expect([untilMorningLabel(evening), minutesUntilMorning(evening)]).toEqual(['until tomorrow 9:00', 10 * 60 + 30]);
    const nine = new Date(2026, 11, 7, 9, 0);
    expect([untilMorningLabel(nine), minutesUntilMorning(nine)]).toEqual(['until tomorrow 9:00', 24 * 60]);
    const night = new Date(2026, 11, 8, 0, 15, 30);
    expect([untilMorningLabel(night), minutesUntilMorning(night)]).toEqual(['until 9:00', 8 * 60 + 45]);
    expect(minutesUntilMorning(new Date(2026, 11, 8, 8, 59, 59))).toBe(1);
    // The end of a month and of a year.
    expect(minutesUntilMorning(new Date(2026, 11, 31, 23, 0))).toBe(10 * 60);
  });

  it('follows the clock across a daylight-saving change', () => {
    process.env.TZ = 'Europe/Berlin';
    // 29 March 2026: 02:00 becomes 03:00, the night is an hour short.
    expect(minutesUntilMorning(new Date(2026, 2, 28, 22, 0))).toBe(10 * 60);
    expect(minutesUntilMorning(new Date(2026, 2, 29, 1, 0))).toBe(7 * 60);
    // 25 October 2026: 03:00 becomes 02:00, the night is an hour long.
    expect(minutesUntilMorning(new Date(2026, 9, 24, 22, 0))).toBe(12 * 60);
  });
});
