/**
 * "Pause until tomorrow 9:00": the pause menu's (window and tray) timed pause to the next
 * local 09:00. Local date arithmetic, so a daylight-saving change that night moves the
 * count by the hour the clock skips or repeats.
 */
export const MORNING_HOUR = 9;

/** The menu item's words at `now`: "until 9:00" between midnight and 9:00, else "until tomorrow 9:00". */
export function untilMorningLabel(now: Date): string {
  return now.getHours() < MORNING_HOUR ? 'until 9:00' : 'until tomorrow 9:00';
}

/** Whole minutes (rounded up, at least 1) from `now` to the next local 09:00. */
export function minutesUntilMorning(now: Date): number {
  const at = new Date(now.getTime());
  if (now.getHours() >= MORNING_HOUR) at.setDate(at.getDate() + 1);
  at.setHours(MORNING_HOUR, 0, 0, 0);
  return Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 60_000));
}
