import type { TaskCard, Verdict } from '../../../../shared/protocol/sechroom';
import type { ClaimedTask } from './claim-path';
import { closeoutText, closeoutTitle, verdictFor, type CloseoutPacket } from './closeout-tools';
import { laneOf, type InstanceSettings } from '../../../../shared/sechroom-instance-settings';
import { taskTitle } from './prompt';
import type { NewOutboxEntry } from './sechroom-outbox';
import type { TurnDetail, TurnOutcome, TurnUsage } from './turn-runner';
import { turnTelemetry } from './turn-telemetry';

export interface FinishedTurn {
  claim: ClaimedTask;
  instanceId: string;
  settings: InstanceSettings;
  card: TaskCard;
  decompositionId: string | null;
  result: TurnOutcome;
  packet: CloseoutPacket | null;
  details: readonly TurnDetail[];
  usage: TurnUsage | null;
}

export type TurnEnd =
  { kind: 'abandon'; reason: string } | { kind: 'complete'; verdict: Verdict; completion: NewOutboxEntry; telemetry: NewOutboxEntry | null };

/**
 * What a finished turn owes the Work Layer (seed B6.5–B6.7, B10): nothing for a crash or a
 * timeout without a closeout (the lease is left to expire); otherwise the completion with
 * the mapped verdict, the seed's text and title, and the turn's run telemetry (null without
 * a `wlp-decomposition` tag).
 */
export function turnEnd(turn: FinishedTurn): TurnEnd {
  const { result, packet, claim, instanceId } = turn;
  // A timed-out turn that did close out counts as completed [seed B8.4].
  if (result.status === 'crashed' || result.status === 'canceled' || (result.status === 'timeout' && !packet)) {
    return { kind: 'abandon', reason: result.status === 'timeout' ? 'turn timed out' : result.reason };
  }
  const lastAgentMessage = result.lastAgentMessage ?? '';
  const verdict = verdictFor(packet?.terminal_status);
  const completion: NewOutboxEntry = {
    kind: 'complete',
    instanceId,
    memoryId: claim.memoryId,
    leaseId: claim.leaseId,
    input: {
      executorInstanceId: instanceId,
      claimToken: claim.claimToken,
      tokenVersion: claim.tokenVersion,
      verdict,
      text: closeoutText(packet, lastAgentMessage),
      source: laneOf(turn.settings),
      title: closeoutTitle(taskTitle(turn.card)),
    },
  };
  if (!turn.decompositionId) return { kind: 'complete', verdict, completion, telemetry: null };
  const events = turnTelemetry({
    taskId: claim.memoryId,
    leaseId: claim.leaseId,
    executorInstanceId: instanceId,
    turnId: result.turnId ?? null,
    verdict,
    summary: packet?.summary ?? null,
    details: turn.details,
    usage: turn.usage,
    model: turn.settings.model ?? null,
  });
  const telemetry: NewOutboxEntry = {
    kind: 'telemetry',
    instanceId,
    memoryId: claim.memoryId,
    leaseId: claim.leaseId,
    decompositionId: turn.decompositionId,
    events,
  };
  return { kind: 'complete', verdict, completion, telemetry };
}
