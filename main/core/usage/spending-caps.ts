import type { RuntimeId } from '../../../shared/runtimes';
import type { Settings } from '../../../shared/settings';
import type { Admission, SpendingCapView } from '../../../shared/usage';
import { capReason } from '../../../shared/usage-text';
import { localPeriods, totalsSince, type AccountRecord } from './usage-book';

/**
 * The spending caps of every model account: tokens (input + output, as the runtime reports
 * them) and cost per local day and week, counted from the usage book's turns (which outlive a
 * restart), so the running totals are recomputed from the window at any time. Cost counts
 * only where the runtime reports it: codex reports none, so a cost cap cannot hold a codex
 * account (its tokens still count), and its cost is shown as unknown, never as $0.
 */
export interface SpendingCaps {
  dailyTokens: number;
  weeklyTokens: number;
  dailyCostUsd: number;
  weeklyCostUsd: number;
}

export const NO_CAPS: SpendingCaps = { dailyTokens: 0, weeklyTokens: 0, dailyCostUsd: 0, weeklyCostUsd: 0 };

/** The share of a cap that notifies, once per window and cap. */
export const CAP_ALERT_PERCENT = 80;

/** Which runtimes report a turn's cost. */
const REPORTS_COST: Readonly<Record<RuntimeId, boolean>> = { claude: true, codex: false };

type SpendingSettings = Pick<Settings, 'spendDailyTokenCap' | 'spendWeeklyTokenCap' | 'spendDailyCostCapUsd' | 'spendWeeklyCostCapUsd'>;

export function spendingCaps(s: SpendingSettings): SpendingCaps {
  return {
    dailyTokens: s.spendDailyTokenCap,
    weeklyTokens: s.spendWeeklyTokenCap,
    dailyCostUsd: s.spendDailyCostCapUsd,
    weeklyCostUsd: s.spendWeeklyCostCapUsd,
  };
}

/** Each cap set (0: none) with what the account spent of it in its current window. */
export function capReadings(account: AccountRecord, caps: SpendingCaps, now: number): SpendingCapView[] {
  const periods = localPeriods(now);
  const windows = [
    { id: 'daily-tokens', limit: caps.dailyTokens, from: periods.day, resetsAt: periods.nextDay },
    { id: 'weekly-tokens', limit: caps.weeklyTokens, from: periods.week, resetsAt: periods.nextWeek },
    { id: 'daily-cost', limit: caps.dailyCostUsd, from: periods.day, resetsAt: periods.nextDay },
    { id: 'weekly-cost', limit: caps.weeklyCostUsd, from: periods.week, resetsAt: periods.nextWeek },
  ] as const;
  return windows
    .filter((w) => w.limit > 0)
    .map((w) => {
      const totals = totalsSince(account, w.from);
      const cost = w.id.endsWith('-cost');
      const used = cost ? totals.costUsd : totals.inputTokens + totals.outputTokens;
      // The priced part is a floor of the cost: reaching the cap with it is reaching it.
      const costUnknown = cost && (!REPORTS_COST[account.runtime] || (totals.unpricedTurns ?? 0) > 0);
      return { id: w.id, used, limit: w.limit, resetsAt: w.resetsAt, costUnknown, reached: used >= w.limit };
    });
}

/** Deferred while a cap is reached, until the latest reset of the reached ones; null when none is. */
export function capAdmission(readings: readonly SpendingCapView[], now: number): Extract<Admission, { state: 'deferred' }> | null {
  const reached = readings.filter((c) => c.reached).sort((a, b) => b.resetsAt - a.resetsAt)[0];
  if (!reached) return null;
  return { state: 'deferred', reason: capReason(reached, now), remainingPercent: null, resumesAt: reached.resetsAt, probeAt: null, cause: 'cap' };
}

/**
 * The 80 % alerts: each cap of each account notifies once per window. Caps already past it
 * when the runner starts were told before it stopped, so they are marked without a notice.
 */
export class CapAlerts {
  private readonly told = new Set<string>();

  /** The caps of `account` (its key) newly at or past 80 % in their window. */
  due(account: string, readings: readonly SpendingCapView[], options: { quiet?: boolean } = {}): SpendingCapView[] {
    const fresh = readings.filter((c) => {
      const key = `${account}|${c.id}|${c.resetsAt}|${c.limit}`;
      if (c.used < (c.limit * CAP_ALERT_PERCENT) / 100 || this.told.has(key)) return false;
      this.told.add(key);
      return true;
    });
    return options.quiet ? [] : fresh;
  }
}
