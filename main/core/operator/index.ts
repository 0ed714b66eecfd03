export { OperatorService, OPERATOR_CLIENT_ID, type OperatorServiceDeps } from './operator-service';
export { createOperatorHandlers } from './operator-handlers';
