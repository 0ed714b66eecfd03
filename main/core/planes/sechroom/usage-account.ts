import type { AppServerTurnResult } from '../../exec/codex-app-server/turn-runner';
import type { UsageService } from '../../usage/usage-service';
import type { RateLimitReading } from '../../../../shared/usage';
import type { AdmissionPort } from './turn-runner';

/**
 * A Sechroom instance on the app's usage accounts (main/core/usage): codex's rate-limit
 * readings and each turn's tokens go to the codex account the instance runs under, and the
 * claim admission is that account's at the instance's own reserve (the seed's
 * `--usage-reserve` rule, with a reset or a bounded probe instead of deferring forever, B15.10). Instances sharing a model account
 * share its windows (the seed has no shared accounting, B12).
 */
export interface SechroomUsage {
  admission: AdmissionPort;
  onRateLimits(reading: RateLimitReading): void;
  onTurnEnded(taskId: string, result: AppServerTurnResult): void;
}

export function sechroomUsage(
  usage: Pick<UsageService, 'admits' | 'admission' | 'recordRateLimits' | 'recordTurn'>,
  /** The instance's `--usage-reserve`. */
  reservePercent: number,
  /** The profile's model account alias: its readings and turns go to that account, its claims are admitted against it. */
  alias: () => string,
): SechroomUsage {
  return {
    admission: {
      async check() {
        // A probe may let one claim through while the windows still say no.
        const at = { alias: alias(), reservePercent };
        if (usage.admits('codex', at)) return { ok: true };
        const admission = usage.admission('codex', at);
        if (admission.state !== 'deferred') return { ok: true };
        return { ok: false, reason: admission.reason, retryAt: admission.resumesAt ?? admission.probeAt };
      },
    },
    onRateLimits: (reading) => usage.recordRateLimits('codex', reading, alias()),
    onTurnEnded(taskId, r) {
      const tokens = r.tokens ? { usage: { input_tokens: r.tokens.inputTokens, output_tokens: r.tokens.outputTokens } } : {};
      const context = r.tokens ? { context: { modelId: r.tokens.modelId, used: r.tokens.contextUsed, window: r.tokens.contextWindow } } : {};
      usage.recordTurn(
        'codex',
        taskId,
        {
          status: r.status === 'completed' ? 'succeeded' : r.status === 'canceled' ? 'canceled' : 'failed',
          reason: r.status === 'completed' ? 'exit' : r.status === 'timeout' ? 'timeout' : r.status === 'canceled' ? 'canceled' : 'runtime_error',
          summary: r.error ?? r.status,
          exitCode: null,
          outputTail: '',
          durationMs: 0,
          outputBytes: 0,
          ...tokens,
          ...context,
        },
        alias(),
      );
    },
  };
}
