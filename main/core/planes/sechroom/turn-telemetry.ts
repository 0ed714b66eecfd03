import type { RunTelemetryEvent, Verdict } from '../../../../shared/protocol/sechroom';
import type { TurnDetail, TurnUsage } from './turn-runner';

/** Detail events kept per turn, so one batch stays within the Work Layer's 500-event cap. */
const MAX_DETAILS = 400;

export interface TurnTelemetryInput {
  taskId: string;
  leaseId: string;
  executorInstanceId: string;
  turnId: string | null;
  verdict: Verdict;
  /** The closeout summary: the terminal event's text. */
  summary: string | null;
  details: readonly TurnDetail[];
  usage: TurnUsage | null;
  /** `--model`, when the usage does not name one. */
  model: string | null;
}

/**
 * One completed turn's run telemetry (seed B10 `emitTurnTelemetry`): only the terminal event
 * for `pass`; the detail events (null meters), then the terminal, otherwise. The terminal
 * carries the usage meters, the model and the verdict.
 */
export function turnTelemetry(input: TurnTelemetryInput): RunTelemetryEvent[] {
  const base = {
    taskId: input.taskId,
    tokensIn: null,
    tokensOut: null,
    contextUsed: null,
    contextWindow: null,
    approvalState: null,
    verdict: null,
    modelId: input.model,
    executorInstanceId: input.executorInstanceId,
    leaseId: input.leaseId,
    turnId: input.turnId,
  };
  const terminal: RunTelemetryEvent = {
    ...base,
    kind: 'Terminal',
    text: input.summary,
    tokensIn: input.usage?.tokensIn ?? null,
    tokensOut: input.usage?.tokensOut ?? null,
    contextUsed: input.usage?.contextUsed ?? null,
    contextWindow: input.usage?.contextWindow ?? null,
    modelId: input.usage?.modelId ?? input.model,
    verdict: input.verdict,
  };
  if (input.verdict === 'pass') return [terminal];
  const details = input.details
    .slice(0, MAX_DETAILS)
    .map((d): RunTelemetryEvent => ({ ...base, kind: d.kind, text: d.text, approvalState: d.approvalState ?? null }));
  return [...details, terminal];
}
