/**
 * Small display helpers shared by the views. Every time of day and date the window shows
 * goes through the formatters here, so they all follow the operator's locale (12 or 24
 * hours, day and month order) the same way.
 */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m ${s}s`;
  if (m > 0) return `${m}m ${s}s`;
  return `${s}s`;
}

export function formatTime(iso: string): string {
  const d = new Date(iso);
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** Hours and minutes only, for narrow columns. */
// One formatter each, made once: making one loads the locale's data (about 20 ms for the
// first), which the first rows would otherwise pay while the window waits for them.
let clockFormat: Intl.DateTimeFormat | undefined;
let countFormat: Intl.NumberFormat | undefined;

export function formatClock(iso: string): string {
  return (clockFormat ??= new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' })).format(new Date(iso));
}

/**
 * Makes the formatters the first view uses while the page waits for its data (main.tsx),
 * each in a task of its own (together they take about as long as the longest task allowed).
 */
export function prepareFormats(): void {
  setTimeout(() => formatClock('1970-01-01T00:00:00Z'), 0);
  setTimeout(() => formatCount(0), 0);
}

/** A chart axis tick (seconds since the epoch), with seconds when ticks are under a minute apart. */
export function formatAxisClock(seconds: number, withSeconds: boolean): string {
  return new Date(seconds * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', ...(withSeconds ? { second: '2-digit' } : {}) });
}

/** Month, day and time, or "—" when there is no (valid) time. */
export function formatStamp(iso: string | null): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  return d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** A time of today as "09:59", of another day as "Dec 2, 09:59": short enough for a list. */
export function formatWhen(iso: string | null, now: number = Date.now()): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '—';
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  return new Date(now).toDateString() === d.toDateString() ? time : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`;
}

export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

/** "12 s ago", "4 min ago", "2 h ago": how long since something happened. */
export function formatAgo(iso: string, now: number): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

export function formatCount(n: number): string {
  return (countFormat ??= new Intl.NumberFormat()).format(n);
}

/** Token counts are large and approximate at a glance: 12.3k. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The first 8 characters of a long id, enough to tell turns apart on screen. */
export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}
