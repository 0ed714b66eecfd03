import type { ExecutionOutcome, ExecutionRequest, UnitExecutor } from '../exec/executor-port';
import type { UsageService } from './usage-service';

/**
 * The executor seen through the usage accounts: rate-limit readings of the turn and its
 * result (tokens, cost, a usage-limit failure) go to the usage service, a unit whose
 * account is deferred is not started at all, and a unit the limit stopped is reported as
 * not run because of the limit rather than as an ordinary failure.
 */
export class MeteredExecutor implements UnitExecutor {
  constructor(
    private readonly inner: UnitExecutor,
    private readonly usage: UsageService,
    private readonly alias: () => string,
  ) {}

  sweepStale(): Promise<number> {
    return this.inner.sweepStale();
  }

  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const { runtime } = request;
    // The alias as the turn starts: its readings and result go to that account.
    const alias = this.alias();
    if (!this.usage.admits(runtime, { alias })) {
      const admission = this.usage.admission(runtime, { alias });
      const why = admission.state === 'deferred' ? admission.reason : 'claims are deferred';
      return notRun(`not run: the ${runtime} account "${alias}" is deferred (${why})`);
    }
    const outcome = await this.inner.execute({
      ...request,
      onRateLimits: (reading) => {
        this.usage.recordRateLimits(runtime, reading, alias);
        request.onRateLimits?.(reading);
      },
    });
    this.usage.recordTurn(runtime, request.unitId, outcome, alias);
    const limit = outcome.usageLimit;
    if (!limit) return outcome;
    const resets = limit.resetsAt !== null ? `; it resets at ${new Date(limit.resetsAt).toISOString()}` : '';
    return { ...outcome, summary: `not run to the end: the usage limit of the ${runtime} account "${alias}" was reached${resets}\n${outcome.summary}` };
  }
}

function notRun(summary: string): ExecutionOutcome {
  return { status: 'failed', reason: 'runtime_error', summary, exitCode: null, outputTail: '', durationMs: 0, outputBytes: 0 };
}
