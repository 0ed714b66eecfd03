import type { operatorCommands } from '../../../shared/operator-contract';
import type { Handlers } from '../base/dispatch';
import type { LazyOperatorService } from './lazy-operator';
import { createWorkLayerHandlers, type WorkLayerHandlers } from '../planes/sechroom/work-layer-handlers';

export type OperatorHandlers = Pick<Handlers, keyof typeof operatorCommands> & WorkLayerHandlers;

/** One handler per operator command; refusals are CommandFailures with one-line messages. */
export function createOperatorHandlers(operator: LazyOperatorService): OperatorHandlers {
  return {
    'operator:status': () => operator.currentStatus(),
    'operator:sign-in': () => operator.signIn(),
    'operator:cancel-sign-in': () => operator.cancelSignIn(),
    'operator:sign-out': () => operator.signOut(),
    'requests:list': (input) => operator.list(input?.limit),
    'requests:show': ({ id }) => operator.show(id),
    'requests:pause': ({ id, reason }) => operator.lifecycle('pause', id, reason),
    'requests:resume': ({ id, reason, terminationBound }) => operator.lifecycle('resume', id, reason, terminationBound),
    'requests:cancel': ({ id, reason }) => operator.lifecycle('cancel', id, reason),
    'requests:confirmation': ({ id }) => operator.confirmation(id),
    'requests:capacity': () => operator.capacity(),
    // The Work view of a Sechroom Work Layer rides with the operator until profiles carry it.
    ...createWorkLayerHandlers(operator.workLayer),
  };
}
