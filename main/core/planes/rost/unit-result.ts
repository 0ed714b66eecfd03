import { RESULT_SUMMARY_MAX, type ResultRequest } from '../../../../shared/protocol';
import { redactText } from '../../../../shared/redact';
import { wireRuntime, type RuntimeId } from '../../../../shared/runtimes';
import type { TurnView } from '../../../../shared/turns';

/** What a finished unit leaves: the result for the control plane (queued durably) and the change to its row in the window. */
export interface UnitRunResult {
  /** null when there is nothing to report: the server refused the start (the seed reports nothing then). */
  result: (ResultRequest & { idempotency_key: string }) | null;
  view: Partial<TurnView>;
  /** Set when the server refused the start: the seed's log line. */
  refused?: string;
}

/** One key per unit attempt, so a result delivered twice is recorded once. */
export function resultKey(unit: { id: string; attempt?: number | undefined }): string {
  return `${unit.id}:${unit.attempt ?? 1}`;
}

/**
 * The one shape of a unit that failed outside its runtime: the start was refused, the
 * context packet or the brain was unusable, no runtime was installed, the runner restarted
 * while it ran. The reason becomes the summary (redacted, clipped) and the row's reason.
 */
export function failedUnit(
  unit: { id: string; attempt?: number | undefined },
  reason: string,
  runtime: RuntimeId | null,
  knownSecrets: readonly string[] = [],
): UnitRunResult & { result: NonNullable<UnitRunResult['result']> } {
  const summary = clipSummary(redactText(reason, knownSecrets));
  return {
    result: {
      status: 'failed',
      summary,
      log_ref: `runner-local:${unit.id}`,
      ...(runtime ? { runtime: wireRuntime(runtime) } : {}),
      idempotency_key: resultKey(unit),
    },
    view: { ...failedView(summary), summary },
  };
}

/** A row that ends failed for a reason of the runner's own (revoked, the result could not be saved); keeps what the run said. */
export function failedView(reason: string): Partial<TurnView> {
  return { phase: 'failed', reason: firstLine(reason) };
}

export function clipSummary(text: string): string {
  return text.length > RESULT_SUMMARY_MAX ? text.slice(0, RESULT_SUMMARY_MAX) : text;
}

/** The first non-empty line, at most 200 characters: what a row shows as its reason. */
export function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim().length > 0) ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
