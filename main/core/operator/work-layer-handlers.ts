import type { workLayerCommands } from '../../../shared/work-layer-contract';
import type { Handlers } from '../dispatch';
import type { WorkLayerOperator } from './work-layer-operator';

export type WorkLayerHandlers = Pick<Handlers, keyof typeof workLayerCommands>;

/** One handler per Work view command; refusals are CommandFailures with one-line messages. */
export function createWorkLayerHandlers(work: WorkLayerOperator): WorkLayerHandlers {
  return {
    'work:board': () => work.board(),
    'work:brief-action': (input) => work.briefAction(input),
    'work:return-for-revision': (input) => work.returnForRevision(input),
  };
}
