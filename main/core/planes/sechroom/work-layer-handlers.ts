import type { workLayerCommands } from '../../../../shared/work-layer-contract';
import type { Handlers } from '../../base/dispatch';
import type { WorkLayerOperator } from './work-layer-operator';

export type WorkLayerHandlers = Pick<Handlers, keyof typeof workLayerCommands>;
/** What the Work view's commands call: the Work Layer operator, or a loader in front of it. */
export interface WorkLayerCalls {
  /** The board of the profile's Work Layer (null: the host's first Sechroom profile, or the environment's). */
  board(profile: string | null): ReturnType<WorkLayerOperator['board']>;
  briefAction(input: Parameters<WorkLayerOperator['briefAction']>[0] & { profile?: string | undefined }): ReturnType<WorkLayerOperator['briefAction']>;
  returnForRevision(
    input: Parameters<WorkLayerOperator['returnForRevision']>[0] & { profile?: string | undefined },
  ): ReturnType<WorkLayerOperator['returnForRevision']>;
}

/** One handler per Work view command; refusals are CommandFailures with one-line messages. */
export function createWorkLayerHandlers(work: WorkLayerCalls): WorkLayerHandlers {
  return {
    'work:board': (profile) => work.board(profile),
    'work:brief-action': (input) => work.briefAction(input),
    'work:return-for-revision': (input) => work.returnForRevision(input),
  };
}
