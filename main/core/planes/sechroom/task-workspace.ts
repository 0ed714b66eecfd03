import type { DeliveryRecord } from '../../../../shared/delivery';
import { errorText } from '../../../../shared/errors';
import type { Logger } from '../../base/ports';
import type { Verdict } from '../../../../shared/protocol/sechroom';
import { completionSuffix } from '../../delivery/delivery-texts';
import type { ClaimedTask } from './claim-path';
import type { TurnEnd } from './completion';

/*
 * Where a claimed task's turn works, and what happens to its changes: the host
 * gives each task its own git worktree of the instance root and delivers it after the turn
 * (delivery-wiring.ts). Without a workspace port the turn runs in the root as the seed's does.
 */

export interface TaskWorkspace {
  /** The turn's working folder. */
  readonly cwd: string;
  /** After a turn that completes (any verdict): commit, push, PR; never throws. Its note ends the completion text. */
  deliver(request: { verdict: Verdict; title: string }): Promise<DeliveryRecord>;
  /** The turn is not completed (abandoned, canceled, lease lost): its worktree and branch go. */
  discard(): Promise<void>;
}

export interface TaskWorkspacePort {
  /** After the card loaded; throws when the task cannot run (the task is abandoned with the message). */
  open(claim: ClaimedTask): Promise<TaskWorkspace>;
}

/**
 * A completed turn's work delivered from its workspace, for every verdict as the seed's; the
 * delivery's note ends the completion text. Null: no workspace (the turn ran in the root).
 */
export async function deliverCompleted(
  space: TaskWorkspace | null,
  end: Extract<TurnEnd, { kind: 'complete' }>,
  title: string,
  log: Pick<Logger, 'warn'>,
): Promise<DeliveryRecord | null> {
  if (!space || end.completion.kind !== 'complete') return null;
  try {
    const git = await space.deliver({ verdict: end.verdict, title });
    end.completion.input.text += completionSuffix(git.note);
    return git;
  } catch (error) {
    // The seed's words (B6.5 step 6): the completion still goes, saying what happened.
    log.warn(`delivery threw (continuing to completion): ${errorText(error)}`);
    end.completion.input.text += deliveryThrewSuffix(errorText(error));
    return null;
  }
}

export const deliveryThrewSuffix = (error: string) => `\n\nDelivery: FAILED unexpectedly (${error}) — changes remain in the executor root.`;
