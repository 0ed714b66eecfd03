import type { PairingState, RunnerSnapshot } from '../../../../shared/runner';
import { iso, type Pause } from '../../runner/pause-state';
import type { RunnerStatus } from '../../../../shared/status';
import { laneOf } from '../../../../shared/sechroom-instance-settings';
import type { SechroomSessionSnapshot } from './sechroom-session-executor';
import type { SechroomProfileConfig } from './sechroom-config';

export interface SechroomStatusInput {
  config: SechroomProfileConfig | null;
  configProblem: string | null;
  signedIn: boolean;
  pairing: PairingState | null;
  snapshot: SechroomSessionSnapshot | null;
  paused: Pause | null;
  active: number;
  stopping: { deadline: number; mode: 'after-turns' | 'now' } | null;
  started: boolean;
}

/** A Sechroom profile's state in the one status model the window, the tray and the terminal show. */
export function sechroomStatus(input: SechroomStatusInput): RunnerStatus {
  const { config, snapshot } = input;
  if (input.configProblem) return { state: 'error', reason: `The Sechroom settings cannot be used: ${input.configProblem}` };
  if (!config) return { state: 'unpaired', reason: 'Set this profile’s Work Layer, tenant and executor instance.' };
  if (input.stopping && input.active > 0) {
    return { state: 'draining', reason: `Finishing ${input.active} running task(s) before quitting.`, remaining: input.active, mode: input.stopping.mode };
  }
  const status = snapshot?.status;
  if (status?.state === 'auth_expired') return { state: 'error', reason: status.message };
  if (!input.signedIn) {
    if (input.pairing?.phase === 'waiting' || input.pairing?.phase === 'starting')
      return { state: 'pairing', reason: 'Waiting for the Work Layer sign-in to be approved.' };
    return { state: 'unpaired', reason: `Sign in to the Work Layer at ${config.baseUrl} (or set SECHROOM_TOKEN).` };
  }
  const lane = laneOf(config.instance);
  if (input.active > 0) return { state: 'working', reason: `Running a task on lane ${lane}.`, active: input.active, limit: 1 };
  if (input.paused) {
    const { until, at, note } = input.paused;
    return { state: 'paused', reason: 'Paused: not claiming Sechroom tasks.', until: iso(until), at: iso(at)!, by: 'you', note };
  }
  if (!status || !input.started) return { state: 'idle', reason: `Sechroom instance ${config.instance.instanceKey} is not running.` };
  switch (status.state) {
    case 'registering':
      return { state: 'idle', reason: `Registering instance ${config.instance.instanceKey} with the Work Layer…` };
    case 'live':
      return { state: 'idle', reason: `Live on lane ${lane}: waiting for dispatched tasks.` };
    case 'deferred':
      return { state: 'idle', held: status.reason, reason: `Not claiming: ${status.reason}` };
    case 'cannot_write':
      return { state: 'error', reason: status.reason };
    case 'paused':
      return { state: 'paused', reason: 'Claims held.', until: null };
    case 'backing_off':
      return { state: 'offline', reason: status.message, retryAt: status.retryAt, ...(status.fault ? { fault: status.fault } : {}) };
    case 'stopped':
      return { state: 'idle', reason: `Sechroom instance ${config.instance.instanceKey} stopped.` };
  }
}

/**
 * The snapshot's telemetry for a Sechroom profile: its executor heartbeats the Work Layer
 * on its own cadence (no long-poll, no Rost runtime detection), on its model account's lane.
 */
export function sechroomTelemetry(
  config: SechroomProfileConfig | null,
  snapshot: SechroomSessionSnapshot | null,
): Pick<RunnerSnapshot, 'heartbeat' | 'runtimes' | 'modelAccount'> {
  return {
    heartbeat: {
      lastOkAt: null,
      nextAt: null,
      consecutiveFailures: 0,
      longPoll: false,
      intervalMs: (config?.instance.heartbeatIntervalSeconds ?? 30) * 1000,
    },
    runtimes: null,
    modelAccount: { alias: config ? laneOf(config.instance) : 'default', state: snapshot?.status.state ?? 'unknown' },
  };
}
