import { errorText } from '../../../../shared/errors';
import type { TaskCard } from '../../../../shared/protocol/sechroom';
import type { Logger } from '../../base/ports';
import type { ClaimedTask } from './claim-path';
import { CloseoutCollector } from './closeout-tools';
import type { InstanceSettings } from '../../../../shared/sechroom-instance-settings';
import { BEGIN_TURN_TEXT, taskInstructions, type LoadedPack } from './prompt';
import type { SechroomTurnRunner, TurnDetail, TurnOutcome, TurnUsage } from './turn-runner';

/** What a claimed task's turn left: its outcome, the closeout tools (with the packet), the details and the usage. */
export interface TaskTurn {
  result: TurnOutcome;
  tools: CloseoutCollector;
  details: TurnDetail[];
  usage: TurnUsage | null;
}

export interface TaskTurnRequest {
  claim: ClaimedTask;
  title: string;
  task: { card: TaskCard; pack: LoadedPack | null };
  cwd: string;
  signal: AbortSignal;
  settings: InstanceSettings;
  log: Logger;
  /** Each lifecycle signal the model sends, as `phase:status`. */
  onPhase(phase: string): void;
}

/**
 * One claimed task's turn (seed B6.4, B8): the card's instructions, "Begin the task now.",
 * the closeout tools, the instance's model, sandbox and timeouts. A runner that throws is a
 * crash; a turn whose signal was aborted is canceled, whatever the runner said.
 */
export async function runTaskTurn(turns: SechroomTurnRunner, request: TaskTurnRequest): Promise<TaskTurn> {
  const { claim, settings, signal, log } = request;
  const details: TurnDetail[] = [];
  let usage: TurnUsage | null = null;
  const tools = new CloseoutCollector((s) => {
    details.push({ kind: 'Parsed', text: `phase:${s.phase}:${s.status}` });
    log.info(`lifecycle ${s.phase}:${s.status} — ${s.summary}`);
    request.onPhase(`${s.phase}:${s.status}`);
  });
  let result: TurnOutcome;
  try {
    result = await turns.run({
      taskId: claim.memoryId,
      leaseId: claim.leaseId,
      title: request.title,
      instructions: taskInstructions(request.task.card, request.task.pack),
      input: BEGIN_TURN_TEXT,
      tools,
      cwd: request.cwd,
      model: settings.model ?? null,
      sandbox: settings.sandbox,
      turnTimeoutMs: settings.turnTimeoutSeconds * 1000,
      resumeTurnTimeoutMs: settings.resumeTurnTimeoutSeconds * 1000,
      signal,
      onDetail: (detail) => details.push(detail),
      onUsage: (u) => {
        usage = u;
      },
    });
  } catch (error) {
    result = { status: 'crashed', reason: errorText(error) };
  }
  if (signal.aborted && result.status !== 'canceled') result = { status: 'canceled', reason: errorText(signal.reason) };
  const finalUsage: TurnUsage | null = result.status === 'completed' ? (result.usage ?? usage) : usage;
  return { result, tools, details, usage: finalUsage };
}
