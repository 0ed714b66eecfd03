// The Sechroom Work Layer connector (docs/protocol.md §12.9): what a host wires together.
export { WorkLayerClient, RUNNER_TRAY_SURFACE, type WorkLayerClientOptions } from './work-layer-client';
export {
  AuthExpiredError,
  OAuthTokenSource,
  StaticTokenSource,
  sechroomOAuthClient,
  sechroomSignIn,
  sechroomTokenAccount,
  type SechroomTokenSource,
} from './sechroom-auth';
export { InstanceSettingsSchema, checkInstanceSettings, laneOf, registrationInput, type InstanceSettings, type InstanceSettingsInput } from './instance-settings';
export { FleetConfigError, parseFleetConfig, readFleetConfig, type FleetInstance } from './fleet-config';
export { ExecutorSession, type ExecutorSessionDeps, type SechroomTurnRecord, type SessionStatus, type SessionSummary } from './executor-session';
export { SechroomOutbox, type OutboxDelivery } from './sechroom-outbox';
export { InflightJournal } from './inflight-journal';
export { CloseoutCollector, SECHROOM_TOOL_DEFINITIONS, verdictFor, type DynamicToolDefinition, type DynamicToolHost, type DynamicToolResult } from './closeout-tools';
export { taskInstructions } from './prompt';
export type { AdmissionPort, RootReadyPort, SechroomTurnRunner, TurnDetail, TurnOutcome, TurnRequest, TurnUsage } from './turn-runner';
