/**
 * What a unit launcher is given: the profile session's side of launching (its identity, control plane,
 * runtime preference and the callbacks that tell it of revocation, readiness and the running count), and
 * the shared kit every launch uses (journal folder, registry, executor, capabilities, breaker, secrets).
 */
import type { RunnerConnector, RunnerCredentials } from './connector';
import type { Clock, Logger } from '../../base/ports';
import type { CapabilityDetector, RuntimePreference } from '../../runner/capabilities';
import type { RuntimeBreaker } from '../../runner/runtime-breaker';
import type { ClaimAdmission } from '../../work/claim-admission';
import type { UnitExecutor } from '../../exec/executor-port';
import type { ResumeCache } from './resume-cache';
import type { TurnRegistry } from '../../work/turn-registry';

/** What launching needs from the profile's session. */
export interface LauncherHost {
  profile: string;
  current(): { connector: RunnerConnector; credentials: RunnerCredentials } | null;
  tenantId(): string | null;
  controlPlaneUrl(): string | null;
  runtime(): RuntimePreference;
  markRevoked(): void;
  /** A runtime's readiness changed (first auth failure, breaker tripped): status and heartbeat follow. */
  readinessChanged(notice: string | null): void;
  /** The number of this profile's turns changed. */
  activeChanged(active: number): void;
  /** A write failed or a turn failed: the storage health looks at the folders (a storage error stops claims). */
  writeFailed?(error: unknown): void;
}

export interface UnitLauncherDeps {
  /** The profile's folder: its outbox and running journal live there. */
  dir: string;
  clock: Clock;
  log: Logger;
  random?: () => number;
  host: LauncherHost;
  registry: TurnRegistry;
  resume: ResumeCache;
  /** The number of results the control plane does not have yet changed. */
  onUndelivered(pending: number): void;
  executor: UnitExecutor;
  capabilities: CapabilityDetector;
  breaker?: RuntimeBreaker;
  knownSecrets(): readonly string[];
  /** Registers a unit's own secret (its MCP token) with the logger until the release is called. */
  registerTurnSecret?(secret: string): () => void;
  /** Extra env for runtime processes (tests point the CLIs at model stubs). */
  runtimeEnv?: Record<string, string>;
  admission?: ClaimAdmission;
}
