import { z } from 'zod';

/**
 * Usage of the model accounts the operator lends (one per runtime and model account
 * alias): the plan's rate-limit windows as the runtime reported them, this runner's own
 * tokens and cost, and whether claims are admitted. Instants are epoch milliseconds,
 * never countdowns, so nothing goes stale while the runner waits.
 */
export const UsageWindowSchema = z.object({
  usedPercent: z.number().min(0).max(100),
  /** Length of the window (e.g. 300 for five hours), null when unknown. */
  windowMinutes: z.number().nonnegative().nullable(),
  /** When the window resets (epoch ms), null when unknown. */
  resetsAt: z.number().nonnegative().nullable(),
});
export type UsageWindow = z.infer<typeof UsageWindowSchema>;

export const RateLimitReadingSchema = z.object({
  primary: UsageWindowSchema.nullable(),
  secondary: UsageWindowSchema.nullable(),
});
export type RateLimitReading = z.infer<typeof RateLimitReadingSchema>;

export const TokenTotalsSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** What the turns that reported a cost cost (see `unpricedTurns`). */
  costUsd: z.number().nonnegative(),
  turns: z.number().int().nonnegative(),
  /** Turns whose runtime reported no cost (codex): their cost is unknown, not $0 (absent from older hosts: 0). */
  unpricedTurns: z.number().int().nonnegative().optional(),
});
export type TokenTotals = z.infer<typeof TokenTotalsSchema>;

export const AdmissionSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('claiming') }),
  z.object({
    state: z.literal('deferred'),
    /** Why, in the seed's words ("rate-limit remaining 1.8% (primary window) is at or below the 2% reserve"). */
    reason: z.string(),
    remainingPercent: z.number().nullable(),
    /** When claiming resumes (the reset instant), or null: re-checked by a probe at `probeAt`. */
    resumesAt: z.number().nullable(),
    probeAt: z.number().nullable(),
    /** 'cap': a spending cap holds the claims (absent: a usage limit or the reserve). */
    cause: z.literal('cap').optional(),
  }),
]);
export type Admission = z.infer<typeof AdmissionSchema>;

/** One spending cap of an account in its current window (the day from local midnight, the week from Monday 00:00 local). */
export const SpendingCapViewSchema = z.object({
  /** `daily-tokens`, `weekly-cost`, … */
  id: z.enum(['daily-tokens', 'weekly-tokens', 'daily-cost', 'weekly-cost']),
  /** Tokens (input + output) or USD spent in the window; for cost, only what the runtime priced. */
  used: z.number().nonnegative(),
  limit: z.number().positive(),
  /** When the window resets (epoch ms). */
  resetsAt: z.number(),
  /** A cost cap where the runtime reports no cost (codex) or some turns were unpriced: the cost is unknown and the cap not enforced below its priced part. */
  costUnknown: z.boolean(),
  reached: z.boolean(),
});
export type SpendingCapView = z.infer<typeof SpendingCapViewSchema>;

export const UsageAccountViewSchema = z.object({
  /** `<runtime>:<alias>`, e.g. `codex:default`. */
  key: z.string(),
  runtime: z.enum(['claude', 'codex']),
  alias: z.string(),
  windows: RateLimitReadingSchema,
  /** When the windows were last reported (epoch ms). */
  observedAt: z.number().nullable(),
  /** Set by a usage-limit failure: no claims until this instant (null: until a probe says otherwise). */
  limited: z.object({ since: z.number(), until: z.number().nullable(), message: z.string() }).nullable(),
  today: TokenTotalsSchema,
  week: TokenTotalsSchema,
  lastTurn: z.object({ at: z.number(), inputTokens: z.number(), outputTokens: z.number(), costUsd: z.number().nullable() }).nullable(),
  admission: AdmissionSchema,
  /** Used percent of the binding window over the last day: [epoch ms, percent]. */
  history: z.array(z.tuple([z.number(), z.number()])),
  /** The spending caps set (none: absent or empty). */
  caps: z.array(SpendingCapViewSchema).optional(),
});
export type UsageAccountView = z.infer<typeof UsageAccountViewSchema>;

export const UsageSnapshotSchema = z.object({
  accounts: z.array(UsageAccountViewSchema),
  reservePercent: z.number(),
});
export type UsageSnapshot = z.infer<typeof UsageSnapshotSchema>;

/** Remaining percent of the binding (most used, not yet reset) window, or null without windows. */
export function bindingWindow(reading: RateLimitReading, now: number): { name: 'primary' | 'secondary'; remaining: number; window: UsageWindow } | null {
  let best: { name: 'primary' | 'secondary'; remaining: number; window: UsageWindow } | null = null;
  for (const name of ['primary', 'secondary'] as const) {
    const w = reading[name];
    if (!w) continue;
    if (w.resetsAt !== null && w.resetsAt <= now) continue; // it has reset since it was reported
    const remaining = Math.max(0, 100 - w.usedPercent);
    if (!best || remaining < best.remaining) best = { name, remaining, window: w };
  }
  return best;
}

export const UsageNoticeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('threshold'), account: z.string(), remainingPercent: z.number(), threshold: z.number() }),
  z.object({ kind: z.literal('limited'), account: z.string(), message: z.string(), until: z.number().nullable() }),
  z.object({ kind: z.literal('recovered'), account: z.string() }),
  /** A spending cap reached `percent` (80) of its limit in this window. */
  z.object({ kind: z.literal('cap'), account: z.string(), cap: SpendingCapViewSchema, percent: z.number() }),
]);
export type UsageNotice = z.infer<typeof UsageNoticeSchema>;
