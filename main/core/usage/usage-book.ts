import type { RuntimeId } from '../../../shared/runtimes';
import { z } from 'zod';
import { readJsonFile, setAside, writePrivateFile } from '../base/json-file';
import { RateLimitReadingSchema, type RateLimitReading, type TokenTotals } from '../../../shared/usage';

/**
 * The usage accounts, one per runtime and model account alias, kept in the data folder
 * (`usage/accounts.json`, owner-only, written atomically, parsed with zod on read; a damaged
 * file is set aside, never silently lost). Each holds the plan's windows as last reported,
 * a limit a failed turn reported, this runner's turns of the last eight days and the
 * binding window's used percent over the last day (the sparkline).
 */
const TurnRecordSchema = z.tuple([z.number(), z.number().int().nonnegative(), z.number().int().nonnegative(), z.number().nonnegative().nullable()]);

const AccountRecordSchema = z.object({
  runtime: z.enum(['claude', 'codex']),
  alias: z.string().min(1).max(200),
  windows: RateLimitReadingSchema,
  observedAt: z.number().nullable(),
  limited: z.object({ since: z.number(), until: z.number().nullable(), message: z.string().max(400) }).nullable(),
  probedAt: z.number().nullable(),
  /** [at, input tokens, output tokens, cost USD | null] */
  turns: z.array(TurnRecordSchema),
  /** [at, used percent of the binding window] */
  history: z.array(z.tuple([z.number(), z.number()])),
});
export type AccountRecord = z.infer<typeof AccountRecordSchema>;

const FileSchema = z.object({ version: z.literal(1), accounts: z.record(z.string(), AccountRecordSchema) });

const TURNS_KEPT_MS = 8 * 86_400_000;
const MAX_TURNS = 20_000;
const HISTORY_MS = 86_400_000;
const HISTORY_STEP_MS = 5 * 60_000;

function emptyAccount(runtime: RuntimeId, alias: string): AccountRecord {
  return { runtime, alias, windows: { primary: null, secondary: null }, observedAt: null, limited: null, probedAt: null, turns: [], history: [] };
}

export function accountKey(runtime: RuntimeId, alias: string): string {
  return `${runtime}:${alias}`;
}

export class UsageBook {
  private accounts = new Map<string, AccountRecord>();
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  async load(): Promise<{ warning: string | null }> {
    const read = await readJsonFile(this.file, FileSchema);
    if (read.kind === 'damaged') {
      const aside = await setAside(this.file);
      this.accounts = new Map();
      return { warning: `The usage file was damaged (${read.why}); it was kept as ${aside} and usage starts afresh.` };
    }
    if (read.kind === 'ok') this.accounts = new Map(Object.entries(read.value.accounts));
    return { warning: null };
  }

  list(): AccountRecord[] {
    return [...this.accounts.values()];
  }

  /** The account, or an empty one that is not kept (reading never creates accounts). */
  get(runtime: RuntimeId, alias: string): AccountRecord {
    return this.accounts.get(accountKey(runtime, alias)) ?? emptyAccount(runtime, alias);
  }

  update(runtime: RuntimeId, alias: string, change: (account: AccountRecord) => void): AccountRecord {
    const key = accountKey(runtime, alias);
    let account = this.accounts.get(key);
    if (!account) {
      account = emptyAccount(runtime, alias);
      this.accounts.set(key, account);
    }
    change(account);
    // save() never rejects (a failed write is retried by the next one).
    void this.save();
    return account;
  }

  recordWindows(account: AccountRecord, windows: RateLimitReading, now: number, usedPercent: number | null): void {
    account.windows = windows;
    account.observedAt = now;
    if (usedPercent === null) return;
    const last = account.history[account.history.length - 1];
    if (last && now - last[0] < HISTORY_STEP_MS && last[1] === usedPercent) return;
    if (last && now - last[0] < HISTORY_STEP_MS) last[1] = usedPercent;
    else account.history.push([now, usedPercent]);
    account.history = account.history.filter(([at]) => at >= now - HISTORY_MS);
  }

  recordTurn(account: AccountRecord, now: number, inputTokens: number, outputTokens: number, costUsd: number | null): void {
    account.turns.push([now, inputTokens, outputTokens, costUsd]);
    const keepFrom = now - TURNS_KEPT_MS;
    account.turns = account.turns.filter(([at]) => at >= keepFrom).slice(-MAX_TURNS);
  }

  /** Serialized writes: the last state always lands last. */
  save(): Promise<void> {
    const snapshot = JSON.stringify({ version: 1, accounts: Object.fromEntries(this.accounts) });
    this.writing = this.writing.then(() => writePrivateFile(this.file, `${snapshot}\n`)).catch(() => undefined);
    return this.writing;
  }

  flush(): Promise<void> {
    return this.writing;
  }
}

/**
 * The local day and week of `now` in the machine's time zone: the day from local midnight,
 * the week from Monday 00:00, and when each next one begins. Built from calendar fields, so a
 * DST day is 23 or 25 hours long and a zone whose clocks skip midnight starts it at 01:00.
 */
export function localPeriods(now: number): { day: number; week: number; nextDay: number; nextWeek: number } {
  const d = new Date(now);
  const [y, m, date] = [d.getFullYear(), d.getMonth(), d.getDate()];
  const monday = date - ((d.getDay() + 6) % 7);
  const at = (dayOfMonth: number) => new Date(y, m, dayOfMonth).getTime();
  return { day: at(date), week: at(monday), nextDay: at(date + 1), nextWeek: at(monday + 7) };
}

export function totalsSince(account: AccountRecord, since: number): TokenTotals {
  const totals = { inputTokens: 0, outputTokens: 0, costUsd: 0, turns: 0, unpricedTurns: 0 } satisfies TokenTotals;
  for (const [at, input, output, cost] of account.turns) {
    if (at < since) continue;
    totals.inputTokens += input;
    totals.outputTokens += output;
    if (cost === null) totals.unpricedTurns++;
    else totals.costUsd += cost;
    totals.turns++;
  }
  totals.costUsd = Math.round(totals.costUsd * 1e6) / 1e6;
  return totals;
}
