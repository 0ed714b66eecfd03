import type { ControlPlaneFault } from '../../../../shared/status';
import type { InstanceSettings } from '../../../../shared/sechroom-instance-settings';
import type { Clock, Logger } from '../../base/ports';
import type { StoragePort } from '../../sessions/storage-health';
import type { InflightJournal } from './inflight-journal';
import type { MachineSlotPort } from './machine-slot';
import type { AuthExpiredError } from './sechroom-auth';
import type { SechroomOutbox } from './sechroom-outbox';
import type { TaskWorkspacePort } from './task-workspace';
import type { AdmissionPort, RootReadyPort, SechroomTurnRunner } from './turn-runner';
import type { SechroomTurnRecord } from './turn-records';
import type { WorkLayerClient } from './work-layer-client';

/* What the executor session (executor-session.ts) is given, and the states it reports. */

export type WorkLayerPort = Pick<
  WorkLayerClient,
  'register' | 'refreshInstance' | 'deregister' | 'offers' | 'claimNext' | 'claimDirect' | 'card' | 'contextPack' | 'heartbeat'
> &
  Partial<Pick<WorkLayerClient, 'leaseNotices'>>;

export interface ExecutorSessionDeps {
  settings: InstanceSettings;
  client: WorkLayerPort;
  turns: SechroomTurnRunner;
  /** Durable: completions and telemetry go through it. The caller loads it; the session starts and stops it. */
  outbox: SechroomOutbox;
  clock: Clock;
  log: Logger;
  admission?: AdmissionPort;
  root?: RootReadyPort;
  /** Whether the folders a claim writes take a write: claims wait while not; write failures are reported to it. */
  storage?: StoragePort;
  /** Git delivery: each task in its own worktree, delivered after the turn (absent: the turn runs in the root). */
  workspace?: TaskWorkspacePort;
  /** Notes of claimed tasks on disk, so a restart can say which turns died with the process. */
  journal?: InflightJournal;
  /** `--once`: stop after the first claimed task. */
  once?: boolean;
  /** [v1] Ask the Work Layer to hold an empty offers read this long (0: poll like the seed). */
  offerWaitMs?: number;
  /** The machine-wide cap on turns at once, shared with every profile of the host (absent: no cap but this loop's one turn). */
  machine?: MachineSlotPort;
  random?: () => number;
  onTurn?(record: SechroomTurnRecord): void;
  onState?(state: SessionStatus): void;
}

export type SessionStatus =
  | { state: 'registering' }
  | { state: 'live'; instanceId: string }
  | { state: 'deferred'; instanceId: string; reason: string }
  /** A folder a claim writes cannot be written (the path and the error): claims wait until it can. */
  | { state: 'cannot_write'; instanceId: string; reason: string }
  | { state: 'paused'; instanceId: string }
  | { state: 'backing_off'; instanceId: string | null; message: string; retryAt: string; fault?: ControlPlaneFault }
  | { state: 'auth_expired'; message: string; remedy: AuthExpiredError['remedy'] }
  | { state: 'stopped' };
