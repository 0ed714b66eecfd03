export { OperatorService } from './operator-service';
export { createOperatorHandlers } from './operator-handlers';
