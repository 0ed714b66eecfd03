import type { RunnerPairingStartOutput } from '../../../../shared/protocol';
import type { SecretStorageInfo } from '../../../../shared/runner';
import type { RunnerConnector } from './connector';
import type { Clock, Logger, PlatformInfo } from '../../base/ports';
import type { RunnerStateStore } from '../../runner/runner-state-store';

/** The slice of the SecretStore port a profile's identity uses. */
export interface RunnerSecretStore {
  readonly backend: 'keychain' | 'file';
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

/** The identity settings pairing acts on (the profile's effective settings). */
export interface IdentityConfig {
  controlPlaneUrl: string;
  runnerName: string;
  expectedTenantId: string | null;
}

export interface IdentityKeeperDeps {
  clock: Clock;
  log: Logger;
  random?: () => number;
  config(): IdentityConfig;
  /** null when no secret backend works and none was chosen: pairing is refused (fail closed). */
  secrets: RunnerSecretStore | null;
  secretStorage: SecretStorageInfo;
  /** The profile's secret-store account for a control plane. */
  account(controlPlaneUrl: string): string;
  state: RunnerStateStore;
  connectorFor(baseUrl: string): RunnerConnector;
  platform: PlatformInfo;
  appVersion: string;
  registerSecret(secret: string): void;
  /** The seed's authenticated start (`runner.pairing.start`) when an operator is signed in; null otherwise. */
  operatorPairingStart?(input: { name: string; platform: string }): Promise<RunnerPairingStartOutput | null>;
  /** The runner can talk to its control plane (paired and its secret found): the heartbeat starts. */
  onConnected(connector: RunnerConnector): void;
  /** The identity is gone (unpaired, revoked): the heartbeat stops. */
  onForgotten(): void;
  onChange(): void;
}
