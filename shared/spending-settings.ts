// The spending caps' field schemas: how many tokens and how much cost every model account
// may spend per local day and week (see settings.ts for the fields and their messages,
// main/core/usage/spending-caps.ts for how they are counted and enforced).
import { z } from 'zod';

/** The largest token cap a setting holds (a trillion), and the largest cost cap (USD). */
export const MAX_TOKEN_CAP = 1e12;
export const MAX_COST_CAP_USD = 1e6;

export const SPENDING_KEYS = ['spendDailyTokenCap', 'spendWeeklyTokenCap', 'spendDailyCostCapUsd', 'spendWeeklyCostCapUsd'] as const;
type SpendingKey = (typeof SPENDING_KEYS)[number];
export function isSpendingKey(key: string): key is SpendingKey {
  return (SPENDING_KEYS as readonly string[]).includes(key);
}

/** Every cap is 0 (no cap) or more: tokens a whole number, cost in dollars. */
export function spendingFieldSchema(key: SpendingKey, error: string): z.ZodType<unknown> {
  switch (key) {
    case 'spendDailyTokenCap':
    case 'spendWeeklyTokenCap':
      return z.number({ error }).int({ error }).min(0, { error }).max(MAX_TOKEN_CAP, { error });
    case 'spendDailyCostCapUsd':
    case 'spendWeeklyCostCapUsd':
      return z.number({ error }).min(0, { error }).max(MAX_COST_CAP_USD, { error });
  }
}
