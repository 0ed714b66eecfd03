// The core's way in to the operator side. OperatorService here is the lazy one: the real
// service (operator-service.ts) is loaded and started at its first use.
export { LazyOperatorService as OperatorService } from './lazy-operator';
export { createOperatorHandlers } from './operator-handlers';
