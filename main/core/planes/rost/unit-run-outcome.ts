/**
 * The last phase of a unit's run, once its runtime is done: the resume cache learns the conversation (or
 * forgets a failed one), and the execution's outcome becomes the result reported to the control plane and
 * the turn row's final view. A stale resume id is recognised here too, for the one fresh retry.
 */
import { errorText } from '../../../../shared/errors';
import { wireRuntime } from '../../../../shared/runtimes';
import type { ClaimedWork } from './connector';
import type { ExecutionOutcome } from '../../exec/executor-port';
import { clipSummary as clip, firstLine, type UnitRunResult } from './unit-result';
import { DEFAULT_TURN_TIMEOUT_MS, type UnitRunDeps } from './unit-run-deps';

/** The resume cache's update for a claude turn; its write is pushed onto `after` (it goes on beside the result). */
export function updateResume(
  deps: UnitRunDeps,
  plan: { runtime: 'claude' | 'codex'; key: string | null },
  outcome: ExecutionOutcome,
  resumeSessionId: string | null,
  after: Promise<unknown>[],
): void {
  const { runtime, key } = plan;
  if (key && runtime === 'claude') {
    const update =
      outcome.status === 'succeeded' && outcome.sessionId
        ? deps.resume.remember(key, outcome.sessionId)
        : outcome.status !== 'succeeded' && resumeSessionId
          ? deps.resume.forget(key)
          : null;
    // The cache answers with the new id at once; its write to disk goes on beside the result.
    if (update) after.push(update.catch((error: unknown) => deps.log.warn('resume cache update failed (continuing)', { error: errorText(error) })));
  }
}

/** The result to report and the turn row's view, from the execution's outcome. */
export function runResult(unit: ClaimedWork, key: string, runtime: 'claude' | 'codex', outcome: ExecutionOutcome, cancelReason: string | null): UnitRunResult {
  const reason =
    outcome.status === 'canceled'
      ? (cancelReason ?? 'canceled')
      : outcome.status === 'failed'
        ? outcome.reason === 'timeout'
          ? `timed out after ${Math.round((unit.timeout_ms ?? DEFAULT_TURN_TIMEOUT_MS) / 1000)} s`
          : firstLine(outcome.summary)
        : null;
  return {
    result: {
      status: outcome.status,
      summary: clip(outcome.summary || 'completed'),
      log_ref: `runner-local:${unit.id}`,
      runtime: wireRuntime(runtime),
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      idempotency_key: key,
    },
    view: {
      phase: outcome.status,
      summary: clip(outcome.summary),
      outputTail: outcome.outputTail,
      tokens: outcome.usage ? { input: outcome.usage.input_tokens, output: outcome.usage.output_tokens } : null,
      costUsd: outcome.usage?.cost_usd ?? null,
      reason,
    },
  };
}

/** claude's answer to a `--resume` id it has no conversation for. */
export function isStaleResume(outcome: ExecutionOutcome): boolean {
  return /no conversation found/i.test(`${outcome.summary}\n${outcome.outputTail}`);
}
