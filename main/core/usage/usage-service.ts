import type { RuntimeId } from '../../../shared/runtimes';
import { errorText } from '../../../shared/errors';
import { bindingWindow, type Admission, type RateLimitReading, type UsageAccountView, type UsageNotice, type UsageSnapshot } from '../../../shared/usage';
import type { Clock, Logger, TimerHandle } from '../base/ports';
import type { ExecutionOutcome } from '../exec/executor-port';
import { decideAdmission } from './admission';
import { accountKey, localPeriods, totalsSince, type AccountRecord, type UsageBook } from './usage-book';
import { CAP_ALERT_PERCENT, CapAlerts, capReadings, NO_CAPS, type SpendingCaps } from './spending-caps';
import type { UsageLog } from './usage-log';

/**
 * Usage of the lent accounts and the admission of claims. Sources: rate-limit readings
 * (codex app-server notifications, a probe), turn results (tokens, cost) and usage-limit
 * failures. Admission is decided before every claim; a deferred account is re-checked at
 * its reset instant or, when none is known, by a bounded probe (for codex the app-server's
 * account/rateLimits/read; otherwise one claim let through at most every 15 min).
 */
export type { UsageNotice } from '../../../shared/usage';

export interface UsageServiceDeps {
  clock: Clock;
  log: Logger;
  book: UsageBook;
  usageLog: UsageLog;
  /** The model account alias the runtimes run under (settings). */
  alias(): string;
  reservePercent(): number;
  /** Percent-left thresholds that raise a notice (default 20 and 5). */
  alertThresholds(): readonly number[];
  /** The spending caps every account is held to (settings; default none). */
  caps?(): SpendingCaps;
  /** Asks the runtime for its current windows; null or a throw when it cannot say. */
  probe?(runtime: RuntimeId): Promise<RateLimitReading | null>;
  onNotice?(notice: UsageNotice): void;
}

/** Which account, and at which reserve: a profile's own alias (default: the setting's) and reserve (default: the setting's). */
export interface AccountRef {
  alias?: string;
  reservePercent?: number;
}

export class UsageService {
  private readonly listeners = new Set<() => void>();
  private readonly lastState = new Map<string, Admission['state']>();
  /** Accounts let through for one claim by a probe without a reading. */
  private readonly grants = new Set<string>();
  private timer: TimerHandle | null = null;
  private running = false;
  private probing: Promise<void> | null = null;
  private readonly capAlerts = new CapAlerts();

  constructor(private readonly deps: UsageServiceDeps) {}

  start(): void {
    this.running = true;
    for (const account of this.deps.book.list()) {
      const key = accountKey(account.runtime, account.alias);
      this.lastState.set(key, this.decide(account).state);
      this.capAlerts.due(key, this.caps(account), { quiet: true });
    }
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether a claim whose unit would run with `runtime` under `at.alias` (default: the setting's) may be made now. */
  admits(runtime: RuntimeId, at: AccountRef = {}): boolean {
    const key = accountKey(runtime, at.alias ?? this.deps.alias());
    if (this.grants.has(key)) return true;
    return this.admission(runtime, at).state === 'claiming';
  }

  /** `at.reservePercent`: a profile's own reserve (a Sechroom instance's `--usage-reserve`) instead of the setting. */
  admission(runtime: RuntimeId, at: AccountRef = {}): Admission {
    return this.decide(this.deps.book.get(runtime, at.alias ?? this.deps.alias()), at.reservePercent);
  }

  /** `alias`: the model account the turn ran under (a profile's own; default: the setting's). */
  recordRateLimits(runtime: RuntimeId, reading: RateLimitReading, alias = this.deps.alias()): void {
    const now = this.deps.clock.now();
    const before = this.remaining(this.deps.book.get(runtime, alias), now);
    const account = this.deps.book.update(runtime, alias, (a) => {
      const binding = bindingWindow(reading, now);
      this.deps.book.recordWindows(a, reading, now, binding ? 100 - binding.remaining : null);
    });
    const after = this.remaining(account, now);
    const key = accountKey(runtime, alias);
    void this.deps.usageLog.append({ type: 'rate-limits', account: key, primary: reading.primary, secondary: reading.secondary, remainingPercent: after });
    if (after !== null) {
      const crossed = [...this.deps.alertThresholds()].sort((a, b) => a - b).find((t) => after <= t && (before === null || before > t));
      if (crossed !== undefined) this.notice({ kind: 'threshold', account: key, remainingPercent: after, threshold: crossed });
    }
    this.changed();
  }

  /** After every turn: its tokens and cost, and a usage-limit failure marks the account limited. */
  recordTurn(runtime: RuntimeId, unitId: string, outcome: ExecutionOutcome, alias = this.deps.alias()): void {
    const now = this.deps.clock.now();
    const key = accountKey(runtime, alias);
    this.grants.delete(key);
    const input = outcome.usage?.input_tokens ?? 0;
    const output = outcome.usage?.output_tokens ?? 0;
    const cost = outcome.usage?.cost_usd ?? null;
    const limit = outcome.usageLimit ?? null;
    const account = this.deps.book.update(runtime, alias, (a) => {
      if (outcome.usage) this.deps.book.recordTurn(a, now, input, output, cost);
      if (limit) {
        a.limited = { since: now, until: limit.resetsAt !== null && limit.resetsAt > now ? limit.resetsAt : null, message: limit.message.slice(0, 400) };
        a.probedAt = now;
      } else if (outcome.status === 'succeeded') {
        a.limited = null;
      }
    });
    void this.deps.usageLog.append({
      type: 'usage',
      account: key,
      unitId,
      status: outcome.status,
      tokensIn: input,
      tokensOut: output,
      costUsd: cost,
      ...(outcome.context ? { modelId: outcome.context.modelId, contextUsed: outcome.context.used, contextWindow: outcome.context.window } : {}),
    });
    if (limit && account.limited) this.notice({ kind: 'limited', account: key, message: account.limited.message, until: account.limited.until });
    this.changed();
  }

  snapshot(): UsageSnapshot {
    const now = this.deps.clock.now();
    const { day, week } = localPeriods(now);
    const accounts: UsageAccountView[] = this.deps.book.list().map((a) => {
      const last = a.turns[a.turns.length - 1];
      return {
        key: accountKey(a.runtime, a.alias),
        runtime: a.runtime,
        alias: a.alias,
        windows: a.windows,
        observedAt: a.observedAt,
        limited: a.limited,
        today: totalsSince(a, day),
        week: totalsSince(a, week),
        lastTurn: last ? { at: last[0], inputTokens: last[1], outputTokens: last[2], costUsd: last[3] } : null,
        admission: this.grants.has(accountKey(a.runtime, a.alias)) ? { state: 'claiming' } : this.decide(a),
        history: a.history.filter(([at]) => at >= now - 86_400_000),
        caps: this.caps(a),
      };
    });
    return { accounts, reservePercent: this.deps.reservePercent() };
  }

  /** The heartbeat's `model_account.state` (≤ 80 characters). */
  heartbeatState(runtime: RuntimeId, alias = this.deps.alias()): string {
    const account = this.deps.book.get(runtime, alias);
    const admission = this.decide(account);
    if (admission.state === 'claiming') return account.observedAt === null && account.turns.length === 0 ? 'unknown' : 'available';
    const until = admission.resumesAt !== null ? ` until ${new Date(admission.resumesAt).toISOString().slice(0, 16)}Z` : '';
    return account.limited ? `limited${until}` : `${admission.cause === 'cap' ? 'spending cap' : 'reserve'} reached${until}`;
  }

  /** Re-decides now (after a settings change of the reserve or the alias). */
  refresh(): void {
    this.changed();
  }

  private decide(account: AccountRecord, reservePercent = this.deps.reservePercent()): Admission {
    return decideAdmission(account, reservePercent, this.deps.clock.now(), this.caps(account));
  }

  private caps(account: AccountRecord) {
    return capReadings(account, this.deps.caps?.() ?? NO_CAPS, this.deps.clock.now());
  }

  private remaining(account: AccountRecord, now: number): number | null {
    return bindingWindow(account.windows, now)?.remaining ?? null;
  }

  private notice(notice: UsageNotice): void {
    this.deps.log.info('usage notice', { ...notice });
    try {
      this.deps.onNotice?.(notice);
    } catch (error) {
      this.deps.log.warn('usage notice listener threw', { error: errorText(error) });
    }
  }

  /** Logs admission transitions, re-arms the timer and tells the listeners. */
  private changed(): void {
    for (const account of this.deps.book.list()) {
      const key = accountKey(account.runtime, account.alias);
      for (const cap of this.capAlerts.due(key, this.caps(account))) this.notice({ kind: 'cap', account: key, cap, percent: CAP_ALERT_PERCENT });
      const admission = this.decide(account);
      const before = this.lastState.get(key) ?? 'claiming';
      if (admission.state === before) continue;
      this.lastState.set(key, admission.state);
      const reason = admission.state === 'deferred' ? admission.reason : null;
      const resumesAt = admission.state === 'deferred' && admission.resumesAt !== null ? new Date(admission.resumesAt).toISOString() : null;
      if (admission.state === 'deferred') this.deps.log.warn('claims deferred', { account: key, reason });
      else {
        this.deps.log.info('claims admitted again', { account: key });
        this.notice({ kind: 'recovered', account: key });
      }
      void this.deps.usageLog.append({
        type: 'admission',
        account: key,
        ok: admission.state === 'claiming',
        reservePercent: this.deps.reservePercent(),
        reason,
        resumesAt,
      });
    }
    this.schedule();
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.deps.log.warn('usage listener threw', { error: errorText(error) });
      }
    }
  }

  /** One timer at the earliest reset or probe instant of a deferred account. */
  private schedule(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    if (!this.running) return;
    const now = this.deps.clock.now();
    let next = Infinity;
    for (const account of this.deps.book.list()) {
      if (this.grants.has(accountKey(account.runtime, account.alias))) continue;
      const a = this.decide(account);
      if (a.state !== 'deferred') continue;
      for (const at of [a.resumesAt, a.probeAt]) if (at !== null) next = Math.min(next, at);
    }
    if (next === Infinity) return;
    this.timer = this.deps.clock.setTimeout(
      () => {
        this.timer = null;
        void this.wakeUp();
      },
      Math.max(0, next - now),
    );
  }

  private async wakeUp(): Promise<void> {
    if (this.probing) return;
    this.probing = this.probeDue().finally(() => (this.probing = null));
    await this.probing;
    this.changed();
  }

  private async probeDue(): Promise<void> {
    const now = this.deps.clock.now();
    for (const account of this.deps.book.list()) {
      const admission = this.decide(account);
      if (admission.state !== 'deferred' || admission.probeAt === null || admission.probeAt > now) continue;
      const key = accountKey(account.runtime, account.alias);
      account.probedAt = now;
      let reading: RateLimitReading | null = null;
      if (this.deps.probe && account.alias === this.deps.alias()) {
        try {
          reading = await this.deps.probe(account.runtime);
        } catch (error) {
          this.deps.log.info('the usage probe could not read the windows', { account: key, error: errorText(error) });
        }
      }
      if (reading) {
        this.deps.log.info('usage probe read the windows', { account: key });
        if (account.limited && account.limited.until === null && (bindingWindow(reading, now)?.remaining ?? 100) > this.deps.reservePercent())
          account.limited = null;
        this.recordRateLimits(account.runtime, reading);
      } else {
        // No way to ask: let one claim through; its result decides (a limit again defers for another 15 min).
        this.deps.log.info('usage probe: letting one claim through to re-check the account', { account: key });
        this.grants.add(key);
      }
    }
    void this.deps.book.save();
  }
}
