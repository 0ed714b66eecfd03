import { bindingWindow, type RateLimitReading } from '../../../../shared/usage';
import type { Logger } from '../../base/ports';
import type { AppServerTurnResult } from '../../exec/codex-app-server/turn-runner';
import type { SechroomUsage } from './usage-account';

const count = (n: number) => n.toLocaleString('en-US');

/** The seed's `tokens <used> / <window> (<pct>%)` meter (`?` for an unknown window). */
export function tokenMeter(used: number, window: number): string {
  const pct = window > 0 ? ((used / window) * 100).toFixed(1) : '?';
  return `${count(used)} / ${count(window)} (${pct}%)`;
}

/**
 * The seed's per-instance usage lines [seed 301, 327–335] beside the shared usage account
 * (which does the accounting and the admission): `rate-limit update: …` on each reading,
 * and after each turn `usage[<key>]: instance total in … out … across <n> task(s); turn …;
 * rate-limit remaining …` with this instance's own totals since it started.
 */
export class InstanceUsageLines {
  private readonly perTask = new Map<string, { in: number; out: number }>();
  private latest: { used: number; window: number } | null = null;
  private reading: RateLimitReading | null = null;

  constructor(
    private readonly instanceKey: string,
    private readonly log: Pick<Logger, 'info'>,
    private readonly now: () => number,
  ) {}

  /** The usage account, its readings and turns also said as the seed's lines. */
  around(usage: SechroomUsage): SechroomUsage {
    return {
      admission: usage.admission,
      onRateLimits: (reading) => {
        usage.onRateLimits(reading);
        this.rateLimits(reading);
      },
      onTurnEnded: (taskId, result) => {
        usage.onTurnEnded(taskId, result);
        this.turnEnded(taskId, result);
      },
    };
  }

  rateLimits(reading: RateLimitReading): void {
    this.reading = reading;
    const binding = bindingWindow(reading, this.now());
    this.log.info(`rate-limit update: ${binding ? `remaining ${binding.remaining.toFixed(1)}% (${binding.name} window)` : 'all windows recovered'}`);
  }

  turnEnded(taskId: string, result: Pick<AppServerTurnResult, 'tokens'>): void {
    const tokens = result.tokens;
    if (!tokens) return;
    // A task's counters are cumulative across its turns (a resumed thread): the latest stands for the task.
    this.perTask.set(taskId, { in: tokens.inputTokens, out: tokens.outputTokens });
    this.latest = { used: tokens.contextUsed, window: tokens.contextWindow ?? 0 };
    this.log.info(this.statusLine());
  }

  statusLine(): string {
    let tokensIn = 0;
    let tokensOut = 0;
    for (const t of this.perTask.values()) {
      tokensIn += t.in;
      tokensOut += t.out;
    }
    const parts = [`instance total in ${count(tokensIn)} out ${count(tokensOut)} across ${this.perTask.size} task(s)`];
    if (this.latest) parts.push(`turn ${tokenMeter(this.latest.used, this.latest.window)}`);
    const binding = this.reading ? bindingWindow(this.reading, this.now()) : null;
    parts.push(binding ? `rate-limit remaining ${binding.remaining.toFixed(1)}%` : 'rate-limit remaining unknown');
    return `usage[${this.instanceKey}]: ${parts.join('; ')}`;
  }
}
