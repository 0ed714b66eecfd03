import type { SecretStorageInfo } from '../../../../shared/runner';
import type { FetchLike } from '../../connectors/http-json';
import type { SecretStore } from '../../secrets/secret-store';
import type { SessionBaseDeps } from '../../sessions/session-base';
import type { TurnRegistry } from '../../work/turn-registry';
import type { MachineSlotPort } from './machine-slot';
import type { SechroomProfileConfig } from './sechroom-config';
import type { TaskWorkspacePort } from './task-workspace';
import type { TokenScope } from './sechroom-token-scope';
import type { AdmissionPort, RootReadyPort, SechroomTurnRunner } from './turn-runner';
import type { StorageHealth } from '../../sessions/storage-health';

/*
 * What a Sechroom profile's session is built from: the host's side of it (its folder, clock,
 * log, secret store, Turns registry, events, the state file its pause is kept in) and the
 * plumbing the host makes for its settings (the turn runner and the workspace, root,
 * admission and machine ports). The factory fills these in; the session only reads them.
 */

/** What one Sechroom profile's turns run on: built by the host for its settings. */
export interface SechroomPlumbing {
  turns: SechroomTurnRunner & { stop?(): Promise<void> };
  workspace?: TaskWorkspacePort;
  root?: RootReadyPort;
  /** The profile's storage health (its outbox, in-flight journal and the turn folders); stopped when the plumbing closes. */
  storage?: StorageHealth;
  admission?: AdmissionPort;
  /** The host's machine-wide cap, this profile's share of it. */
  machine?: MachineSlotPort;
}

/** `dir` holds sechroom.json, the outbox and the in-flight journal; `state` its pause. */
export interface SechroomSessionDeps extends SessionBaseDeps {
  registry: TurnRegistry;
  secrets: SecretStore | null;
  secretStorage: SecretStorageInfo;
  registerSecret(secret: string): void;
  knownSecrets(): readonly string[];
  fetch?: FetchLike;
  /** `SECHROOM_TOKEN` when it applies to this profile (sechroom-token-scope.ts), and where its credential comes from. */
  tokenScope(): TokenScope;
  /** Settings the host was started with (headless flags, a fleet import): saved over the stored ones. */
  initial?: SechroomProfileConfig;
  plumbing(config: SechroomProfileConfig): SechroomPlumbing;
  /** false: claim only for `runOne` (the headless `--once`). */
  autoClaim: boolean;
  /** [v1] How long an empty offers read is held (0: poll like the seed). */
  offerWaitMs?: number;
}
