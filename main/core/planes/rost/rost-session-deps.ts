/**
 * The Rost session's inputs and its parts: what the registry hands a profile's session (its settings,
 * stores, connectors and host callbacks), the components the session is assembled from, and the few
 * hooks through which those components reach back into the session's own state (a change, the claim
 * gate, the heartbeat's body, the active and undelivered counts).
 */
import type { HeartbeatRequest, RunnerPairingStartOutput } from '../../../../shared/protocol';
import type { SecretStorageInfo } from '../../../../shared/runner';
import type { Settings } from '../../../../shared/settings';
import type { RunnerConnector } from './connector';
import type { PlatformInfo } from '../../base/ports';
import type { CapabilityDetector } from '../../runner/capabilities';
import type { HeartbeatTracker } from './heartbeat-tracker';
import type { IdentityKeeper, RunnerSecretStore } from './identity-keeper';
import type { PauseState } from '../../runner/pause-state';
import type { RunnerIdentity } from '../../runner/runner-state-store';
import type { RuntimeBreaker } from '../../runner/runtime-breaker';
import type { CapacityHistory } from '../../runner/telemetry';
import type { ClaimAdmission } from '../../work/claim-admission';
import type { UnitExecutor } from '../../exec/executor-port';
import type { TurnRegistry } from '../../work/turn-registry';
import type { UnitLauncher } from './unit-launcher';
import type { ClaimStrategy } from '../../sessions/claim-loop';
import type { MachineSlots } from '../../sessions/machine-slots';
import type { SessionBaseDeps } from '../../sessions/session-base';
import type { RuntimeGate } from './runtime-gate';
import type { AnswerWatch } from './answer-watch';
import type { StorageHealth } from '../../sessions/storage-health';

/** `dir` holds its state file, outbox and running journal. */
export interface RostSessionDeps extends SessionBaseDeps {
  /** The host's turn folders (a claim needs them writable too). */
  turnsDir?: string;
  /** The profile's effective settings (its own over the host's). */
  settings(): Settings;
  /** The heartbeat's model account state (measured, unless the setting overrides it). */
  accountState(): string;
  secrets: RunnerSecretStore | null;
  secretStorage: SecretStorageInfo;
  /** The profile's secret-store account for a control plane. */
  account(controlPlaneUrl: string): string;
  connectorFor(baseUrl: string): RunnerConnector;
  capabilities: CapabilityDetector;
  breaker: RuntimeBreaker;
  history: CapacityHistory;
  machine: MachineSlots;
  registry: TurnRegistry;
  executor: UnitExecutor;
  admission?: ClaimAdmission;
  platform: PlatformInfo;
  appVersion: string;
  cpuCount: number;
  registerSecret(secret: string): void;
  knownSecrets(): readonly string[];
  registerTurnSecret?(secret: string): () => void;
  runtimeEnv?: Record<string, string>;
  operatorPairingStart?(input: { name: string; platform: string }): Promise<RunnerPairingStartOutput | null>;
  /** Why claims wait on a usage reserve or limit, or null. */
  claimsDeferred?(): string | null;
  /** Why the host's lending terms hold new work back (the first hold's reason), or null. */
  lendingHeld?(): string | null;
  /** `seed`: the seed CLI's serial cadence (the benchmark's baseline). */
  strategy: 'adaptive' | 'seed';
  /** false: claim only when asked (`runOne`, for `--once`). */
  autoClaim: boolean;
  /** A runtime's readiness changed here (auth failure, breaker): every profile looks again. */
  onRuntimes(notice: string | null): void;
}

/** The components a session is assembled from. */
export interface SessionParts {
  identityKeeper: IdentityKeeper;
  heartbeat: HeartbeatTracker;
  answers: AnswerWatch;
  pauseState: PauseState;
  launcher: UnitLauncher;
  loop: ClaimStrategy;
  runtimes: RuntimeGate;
  /** Whether the journal, outbox and turn folders take writes (claims stop while not). */
  storage: StorageHealth;
}

/** How the parts reach back into the session's own state. */
export interface SessionHooks {
  /** Every change of state (the session's `changed`). */
  changed(): void;
  /** Why this profile may not claim now, or null. */
  blocked(): string | null;
  heartbeatBody(): Promise<HeartbeatRequest>;
  identity(): RunnerIdentity | null;
  /** The launcher's count of results not yet delivered. */
  undelivered(pending: number): void;
  /** The launcher's count of running turns. */
  active(active: number): void;
}
