import { bindingWindow, type Admission, type SpendingCapView, type TokenTotals, type UsageAccountView, type UsageNotice, type UsageWindow } from './usage';

/**
 * The words the window and the tray use for the usage meters, computed from absolute
 * instants and the current time (so they never go stale): "resets in 2 h 14 min (at
 * 16:30)", "deferred: 1.8 % left, resumes at 16:30".
 */
const RUNTIME_NAMES = { claude: 'Claude', codex: 'Codex' } as const;

export function accountTitle(account: Pick<UsageAccountView, 'runtime' | 'alias'>): string {
  return `${RUNTIME_NAMES[account.runtime]} · ${account.alias}`;
}

/** Local wall-clock time, 24-hour: 16:30. */
export function wallClock(at: number): string {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

/** 2 h 14 min; 14 min; 1 d 3 h; under a minute. */
export function spanText(ms: number): string {
  const minutes = Math.max(0, Math.ceil(ms / 60_000));
  if (minutes < 1) return 'under a minute';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** "at 16:30" today or within a day; "on Sat 16:30" further out. */
export function whenText(at: number, now: number): string {
  return at - now < 86_400_000 ? `at ${wallClock(at)}` : `on ${WEEKDAYS[new Date(at).getDay()]} ${wallClock(at)}`;
}

export function resetText(resetsAt: number | null, now: number): string {
  if (resetsAt === null) return 'reset time not reported';
  if (resetsAt <= now) return 'has reset';
  return `resets in ${spanText(resetsAt - now)} (${whenText(resetsAt, now)})`;
}

export function windowName(window: UsageWindow, which: 'primary' | 'secondary'): string {
  const m = window.windowMinutes;
  if (m === null) return which === 'primary' ? 'Primary window' : 'Secondary window';
  if (m === 10_080) return 'Weekly';
  if (m % 1440 === 0) return `${m / 1440}-day`;
  if (m % 60 === 0) return `${m / 60}-hour`;
  return `${m}-minute`;
}

export function percentText(value: number): string {
  const rounded = Math.round(value * 10) / 10;
  return `${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)} %`;
}

export function admissionText(admission: Admission, now: number): string {
  if (admission.state === 'claiming') return 'claiming';
  if (admission.cause === 'cap')
    return `deferred: ${admission.reason.replace(/ \(.*$/, '').toLowerCase()}, resumes ${whenText(admission.resumesAt ?? now, now)}`;
  const left = admission.remainingPercent !== null ? `${percentText(admission.remainingPercent)} left` : 'limited';
  if (admission.resumesAt !== null && admission.resumesAt > now) return `deferred: ${left}, resumes ${whenText(admission.resumesAt, now)}`;
  if (admission.probeAt !== null) return `deferred: ${left}, re-checking at ${wallClock(admission.probeAt)}`;
  return `deferred: ${left}`;
}

export function usd(value: number): string {
  return value >= 100 ? `$${value.toFixed(0)}` : `$${value.toFixed(2)}`;
}

/**
 * The cost of some turns: a runtime that reports none (codex) makes it unknown, never $0;
 * where only some turns were priced, their sum and "+ unknown".
 */
export function costText(totals: Pick<TokenTotals, 'costUsd' | 'turns' | 'unpricedTurns'>): string {
  const unpriced = totals.unpricedTurns ?? 0;
  if (unpriced === 0) return usd(totals.costUsd);
  if (unpriced >= totals.turns) return 'cost unknown';
  return `${usd(totals.costUsd)} + unknown`;
}

/** One line per account for the tray menu. */
export function accountSummaryLine(account: UsageAccountView, now: number): string {
  const title = accountTitle(account);
  if (account.admission.state === 'deferred') return `${title}: ${admissionText(account.admission, now)}`;
  const binding = bindingWindow(account.windows, now);
  if (binding) return `${title}: ${percentText(binding.remaining)} left, ${resetText(binding.window.resetsAt, now)}`;
  const today = account.today;
  const cost = today.costUsd > 0 || (today.unpricedTurns ?? 0) > 0 ? `, ${costText(today)}` : '';
  return `${title}: ${today.turns} turn${today.turns === 1 ? '' : 's'} today${cost}`;
}

const CAP_NAMES: Record<SpendingCapView['id'], string> = {
  'daily-tokens': 'Daily token cap',
  'weekly-tokens': 'Weekly token cap',
  'daily-cost': 'Daily cost cap',
  'weekly-cost': 'Weekly cost cap',
};

export function capName(id: SpendingCapView['id']): string {
  return CAP_NAMES[id];
}

/** 512; 820 k; 1.2 M; 1 M. */
export function tokenAmount(n: number): string {
  const one = (v: number) => String(Math.round(v * 10) / 10);
  if (n < 1000) return String(Math.round(n));
  return n < 1_000_000 ? `${one(n / 1000)} k` : `${one(n / 1_000_000)} M`;
}

/** "1.2 M of 1 M", "$8.20 of $10.00". */
export function capAmounts(cap: Pick<SpendingCapView, 'id' | 'used' | 'limit'>): string {
  const amount = cap.id.endsWith('-cost') ? usd : tokenAmount;
  return `${amount(cap.used)} of ${amount(cap.limit)}`;
}

/** "Daily token cap reached (1.2 M of 1 M) — resumes at 00:00". */
export function capReason(cap: SpendingCapView, now: number): string {
  return `${capName(cap.id)} reached (${capAmounts(cap)}) — resumes ${whenText(cap.resetsAt, now)}`;
}

/** The 80 % notice, for the tray and the headless terminal: "claude:default has used 82 % of its daily token cap (820 k of 1 M); it resets at 00:00." */
export function capNoticeText(notice: Extract<UsageNotice, { kind: 'cap' }>, now = Date.now()): string {
  const { cap } = notice;
  const share = percentText(Math.min(999, (cap.used / cap.limit) * 100));
  const unknown = cap.costUnknown ? ' (cost of some turns unknown)' : '';
  return `${notice.account} has used ${share} of its ${capName(cap.id).toLowerCase()} (${capAmounts(cap)})${unknown}; it resets ${whenText(cap.resetsAt, now)}.`;
}
