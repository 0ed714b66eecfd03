import type { RunnerSnapshot } from '../../../shared/runner';
import type { RunnerStatus } from '../../../shared/status';
import { sameJson, share } from './same';

/** What the window knows about the runner: the status line and the last full snapshot. */
export interface RunnerSlice {
  status: RunnerStatus | null;
  snapshot: RunnerSnapshot | null;
}

export const initialRunner: RunnerSlice = { status: null, snapshot: null };

export function withStatus(slice: RunnerSlice, status: RunnerStatus): RunnerSlice {
  if (sameJson(slice.status, status)) return slice;
  return { ...slice, status };
}

export function withSnapshot(slice: RunnerSlice, snapshot: RunnerSnapshot): RunnerSlice {
  const next = share(slice.snapshot, snapshot);
  const status = sameJson(slice.status, next.status) ? slice.status : next.status;
  if (next === slice.snapshot && status === slice.status) return slice;
  return { status, snapshot: next };
}

/** Paired and holding its secret: the runner can take work. */
export function isPaired(snapshot: RunnerSnapshot | null): boolean {
  return snapshot?.identity != null;
}
