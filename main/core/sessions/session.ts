import type { ConnectorKind, Profile, ProfileSummary } from '../../../shared/profiles';
import type { PairingState, RunnerSnapshot } from '../../../shared/runner';
import type { PlaneLane } from '../../../shared/protocol';
import type { RunnerStatus } from '../../../shared/status';
import { CommandFailure } from '../base/dispatch';
import type { RunnerIdentity } from '../runner/runner-state-store';

/** What `runOne` did: whether a unit was claimed, and whether anything on the way failed. */
export interface RunOneOutcome {
  claimed: boolean;
  /** A claim, start or result delivery that failed (the seed's `--once` exits 1 then). */
  error: string | null;
}

/** Getting an identity from the control plane (Rost's pairing, Sechroom's sign-in) and giving it up. */
export interface PairingCapability {
  start(options?: { userCode?: string }): Promise<PairingState>;
  cancel(): void;
  unpair(force: boolean): Promise<void>;
}

/** Taking over the identity of a state file another runner left (`rost runner serve`'s). */
export interface StateImportCapability {
  importState(file: string): Promise<{ runnerId: string; notes: string[] }>;
}

/** Runtimes a crashed host left running, stopped before any profile starts (the host then sweeps their files). */
export interface LeftoversCapability {
  stop(): Promise<void>;
}

/** What a plane's session can do beyond the core: a plane declares only what it really does. */
export interface SessionCapabilities {
  pairing?: PairingCapability;
  stateImport?: StateImportCapability;
  leftovers?: LeftoversCapability;
}

export type CapabilityName = keyof SessionCapabilities;

/**
 * One profile's runner session: its identity against its control plane, its pause, its
 * one claim loop and its turns. The registry holds one per profile and knows nothing of
 * the connector behind it: every plane implements this core (rost-session.ts,
 * sechroom-session.ts; the parts they share are sessions/session-base.ts) and declares
 * what else it can do in `capabilities`.
 */
export interface RunnerSession {
  readonly profile: Profile;
  readonly capabilities: SessionCapabilities;
  /**
   * What to do instead, said with the refusal of a capability this plane lacks
   * (`requireCapability`), e.g. "sign in or set SECHROOM_TOKEN".
   */
  readonly instead?: Partial<Record<CapabilityName, string>>;
  start(): Promise<void>;
  /** Stops claiming and beating; turns still running are the drain's business. */
  stop(): Promise<void>;

  status(): RunnerStatus;
  snapshot(): RunnerSnapshot;
  summary(): ProfileSummary;
  readonly identity: RunnerIdentity | null;
  readonly paused: boolean;

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

const PLANE_NAMES: Record<ConnectorKind, string> = { rost: 'Rost', sechroom: 'Sechroom' };

/** What a profile of a plane without the capability cannot do, as the refusal says it. */
const LACKS: Record<CapabilityName, string> = {
  pairing: 'has nothing to pair or sign in to',
  stateImport: 'has no runner state file to import',
  leftovers: 'has no leftover runtimes to stop',
};

/**
 * A capability of the session, or the one refusal for a plane that lacks it (every command
 * asks here): CommandFailure('unsupported', naming the plane and what to do instead).
 */
export function requireCapability<K extends CapabilityName>(session: RunnerSession, name: K): NonNullable<SessionCapabilities[K]> {
  const capability = session.capabilities[name];
  if (capability) return capability as NonNullable<SessionCapabilities[K]>;
  const instead = session.instead?.[name];
  const plane = PLANE_NAMES[session.profile.connector];
  throw new CommandFailure('unsupported', `A ${plane} profile ${LACKS[name]}${instead ? `; ${instead}` : ''}.`);
}
