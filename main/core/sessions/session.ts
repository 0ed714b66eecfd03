import type { Profile, ProfileSummary } from '../../../shared/profiles';
import type { PairingState, RunnerSnapshot } from '../../../shared/runner';
import type { PlaneLane } from '../../../shared/protocol';
import type { RunnerStatus } from '../../../shared/status';
import type { RunnerIdentity } from '../runner/runner-state-store';

/** What `runOne` did: whether a unit was claimed, and whether anything on the way failed. */
export interface RunOneOutcome {
  claimed: boolean;
  /** A claim, start or result delivery that failed (the seed's `--once` exits 1 then). */
  error: string | null;
}

/**
 * One profile's runner session: its identity against its control plane, its pause, its
 * one claim loop and its turns. The registry holds one per profile and knows nothing of
 * the connector behind it: a Rost session today (rost-session.ts); a Sechroom session
 * implements the same interface.
 */
export interface RunnerSession {
  readonly profile: Profile;
  /** Before any profile starts: stops runtimes a crashed host left running (the host then sweeps their files). */
  stopLeftovers(): Promise<void>;
  start(): Promise<void>;
  /** Stops claiming and beating; turns still running are the drain's business. */
  stop(): Promise<void>;

  status(): RunnerStatus;
  snapshot(): RunnerSnapshot;
  summary(): ProfileSummary;
  readonly identity: RunnerIdentity | null;
  readonly paused: boolean;

  startPairing(options?: { userCode?: string }): Promise<PairingState>;
  cancelPairing(): void;
  importState(file: string): Promise<{ runnerId: string; notes: string[] }>;
  unpair(force: boolean): Promise<void>;
  pause(minutes: number | null, note: string | null): Promise<void>;
  resume(): Promise<void>;
  rename(name: string): void;
  /** The profile's or the host's settings changed (the heartbeat tells the control plane at once). */
  reconfigure(): void;
  /** Something outside the session changed its status (the usage accounts): say it again. */
  refreshStatus(): void;
  /**
   * The runtimes (machine-wide) changed: readiness, the breaker, a fresh detection. The
   * heartbeat tells the control plane at once unless `beat` is false (the first detection).
   */
  runtimesChanged(notice: string | null, beat?: boolean): void;

  /** Turns of this profile running now. */
  readonly activeCount: number;
  ownsTurn(id: string): boolean;
  cancelTurn(id: string, reason?: string): boolean;
  cancelAll(reason: string): number;
  whenIdle(): Promise<void>;
  /** Results in the outbox the control plane does not have yet. */
  readonly undelivered: number;

  /** Quitting: claim nothing more (turns go on); `releaseClaims` calls that off. */
  holdClaims(): void;
  releaseClaims(): void;
  setStopping(stopping: { deadline: number; mode: 'after-turns' | 'now' } | null): void;
  /** The last step of a quit: wait up to `limitMs` for the turns, cancel the rest, flush the outbox. */
  drain(limitMs: number): Promise<{ canceled: number }>;

  /** `--once` as the seed: one full claim and, when a unit comes, run it to its end and try to deliver. */
  runOne(): Promise<RunOneOutcome>;
  /** [v1] `--dry-run`: the lanes the plane would hand this runner, nothing claimed; null when the plane lists none. */
  lanes?(): Promise<readonly PlaneLane[] | null>;
  /** After each good heartbeat (the headless seed lines print one). */
  onHeartbeat(listener: () => void): () => void;
}
