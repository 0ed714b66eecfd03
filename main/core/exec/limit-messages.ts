import type { UsageLimitHit } from './executor-port';

/**
 * Recognises a runtime's "your plan's usage limit is reached" failure in its text, with the
 * reset instant when the message gives one. Shapes handled:
 *
 * - claude, older: `Claude AI usage limit reached|1767261600` (unix seconds after the bar)
 * - claude: `5-hour limit reached ∙ resets 3pm`, `You've hit your limit · resets 4:30pm (Europe/Berlin)`,
 *   `Claude usage limit reached. Your limit will reset at 5pm (America/New_York).`
 * - the API: `API Error: 429 {"type":"error","error":{"type":"rate_limit_error",…}}` (no reset given)
 * - codex: `You've hit your usage limit. … try again in 2 hours 14 minutes.` / `… try again at 4:30 PM.`
 *
 * A wall-clock time without a date is its next occurrence after `now`, in the named time
 * zone when one is given, else in the runner's own.
 */
const LIMIT = /usage limit reached|limit reached|hit your (?:usage )?limit|usage limit exceeded|rate_limit_error|\b429\b.*(?:rate|limit)|quota exceeded/i;

export function parseUsageLimit(text: string, now: number): UsageLimitHit | null {
  if (!LIMIT.test(text)) return null;
  const line =
    text
      .split('\n')
      .find((l) => LIMIT.test(l))
      ?.trim() ?? text.trim();
  const message = line.length > 300 ? `${line.slice(0, 299)}…` : line;
  return { message, resetsAt: resetInstant(text, now) };
}

function resetInstant(text: string, now: number): number | null {
  const epoch = /limit reached\|(\d{9,13})/i.exec(text);
  if (epoch?.[1]) {
    const n = Number(epoch[1]);
    return n > 1e12 ? n : n * 1000;
  }
  const relative = /try again in ((?:\s*(?:and\s+)?\d+\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b,?)+)/i.exec(text);
  if (relative?.[1]) {
    let ms = 0;
    for (const [, n, unit] of relative[1].matchAll(/(\d+)\s*([a-z]+)/gi)) {
      const u = (unit ?? '').toLowerCase();
      const k = u.startsWith('d') ? 86_400_000 : u.startsWith('h') ? 3_600_000 : u.startsWith('m') ? 60_000 : 1_000;
      ms += Number(n) * k;
    }
    return ms > 0 ? now + ms : null;
  }
  const clock = /(?:resets?|reset at|try again at)\s+(?:at\s+)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z_+-]+)*)\))?/i.exec(text);
  if (clock?.[1]) {
    let hour = Number(clock[1]);
    const minute = Number(clock[2] ?? 0);
    const meridiem = clock[3]?.toLowerCase();
    if (meridiem === 'pm' && hour < 12) hour += 12;
    if (meridiem === 'am' && hour === 12) hour = 0;
    if (hour > 23 || minute > 59) return null;
    return nextWallTime(hour, minute, clock[4] ?? null, now);
  }
  return null;
}

/** Minutes the zone is ahead of UTC at `at` (0 for an unknown zone). */
function zoneOffsetMinutes(zone: string | null, at: number): number {
  if (zone === null) return -new Date(at).getTimezoneOffset();
  try {
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    }).formatToParts(new Date(at));
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
    const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
    return Math.round((wall - Math.floor(at / 60_000) * 60_000) / 60_000);
  } catch {
    return -new Date(at).getTimezoneOffset();
  }
}

function nextWallTime(hour: number, minute: number, zone: string | null, now: number): number {
  const offset = zoneOffsetMinutes(zone, now);
  const wallNow = new Date(now + offset * 60_000);
  let candidate = Date.UTC(wallNow.getUTCFullYear(), wallNow.getUTCMonth(), wallNow.getUTCDate(), hour, minute) - offset * 60_000;
  if (candidate <= now) candidate += 86_400_000;
  return candidate;
}
