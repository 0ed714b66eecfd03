import type { workLayerCommands } from '../../../shared/work-layer-contract';
import type { Handlers } from '../dispatch';
import type { WorkLayerOperator } from './work-layer-operator';

export type WorkLayerHandlers = Pick<Handlers, keyof typeof workLayerCommands>;
/** What the Work view's commands call: the Work Layer operator, or a loader in front of it. */
export type WorkLayerCalls = Pick<WorkLayerOperator, 'board' | 'briefAction' | 'returnForRevision'>;

/** One handler per Work view command; refusals are CommandFailures with one-line messages. */
export function createWorkLayerHandlers(work: WorkLayerCalls): WorkLayerHandlers {
  return {
    'work:board': () => work.board(),
    'work:brief-action': (input) => work.briefAction(input),
    'work:return-for-revision': (input) => work.returnForRevision(input),
  };
}
