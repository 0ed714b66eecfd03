import type { HostEvent } from '../../../shared/contract';
import type { Profile, ProfileSummary } from '../../../shared/profiles';
import type { RunnerSnapshot } from '../../../shared/runner';
import type { RunnerStatus } from '../../../shared/status';
import type { Clock, Logger } from '../base/ports';
import { PauseState } from '../runner/pause-state';
import type { RunnerIdentity, RunnerStateStore } from '../runner/runner-state-store';
import type { RunOneOutcome, RunnerSession, SessionCapabilities } from './session';
import { SessionEvents } from './session-events';

/** What every plane's session is given by the host (a plane's deps extend it). */
export interface SessionBaseDeps {
  profile: Profile;
  /** The profile's folder: its state file and what the plane keeps there. */
  dir: string;
  clock: Clock;
  log: Logger;
  /** Jitter of the backoffs (tests pin it). */
  random?: () => number;
  /** The profile's state file: its pause is kept there. */
  state: RunnerStateStore;
  emit(event: HostEvent): void;
  /** The status or the snapshot changed (the registry tells the switcher and the tray). */
  onChange(): void;
}

export type Stopping = { deadline: number; mode: 'after-turns' | 'now' };

/**
 * What a Rost and a Sechroom session do alike: the profile under its current name, the
 * pause (kept in the state file), holding claims while the host quits, the quit's stopping
 * deadline, and telling the host of each change (sessions/session-events.ts). A plane's
 * session extends it with its own lifecycle, status and turns, and hears of the shared
 * state's changes through the hooks below.
 */
export abstract class SessionBase implements RunnerSession {
  abstract readonly capabilities: SessionCapabilities;
  protected readonly events: SessionEvents;
  protected readonly pauseState: PauseState;
  /** Claims held for a quit (`holdClaims`, a drain). */
  protected holding = false;
  protected stopping: Stopping | null = null;
  private name: string;

  constructor(private readonly base: SessionBaseDeps) {
    this.name = base.profile.name;
    this.events = new SessionEvents({ profile: base.profile.id, emit: (event) => base.emit(event), onChange: () => base.onChange() });
    this.pauseState = new PauseState({
      clock: base.clock,
      log: base.log,
      state: base.state,
      onChange: (paused) => {
        this.pauseChanged(paused);
        this.changed();
      },
    });
  }

  get profile(): Profile {
    return { ...this.base.profile, name: this.name };
  }
  get paused(): boolean {
    return this.pauseState.current !== null;
  }

  /** Claims nothing new (a turn in flight goes on); kept in the profile's state file, a timed one ends by itself. */
  pause(minutes: number | null, note: string | null): Promise<void> {
    return this.pauseState.pause(minutes, note);
  }
  async resume(): Promise<void> {
    await this.pauseState.resume();
  }

  rename(name: string): void {
    this.name = name;
    this.changed();
  }

  refreshStatus(): void {
    this.changed();
  }

  holdClaims(): void {
    this.holding = true;
    this.claimsHeld(true);
    this.changed();
  }
  releaseClaims(): void {
    if (!this.holding) return;
    this.holding = false;
    this.claimsHeld(false);
    this.changed();
  }

  setStopping(stopping: Stopping | null): void {
    const was = this.stopping !== null;
    this.stopping = stopping;
    if (was !== (stopping !== null)) this.stoppingChanged();
    this.changed();
  }

  onHeartbeat(listener: () => void): () => void {
    return this.events.onHeartbeat(listener);
  }

  /** Every change of state: the window and the registry hear of it. */
  protected changed(): void {
    this.events.changed(this.snapshot());
  }

  /** A pause began or ended (before the change is told). */
  protected pauseChanged(_paused: boolean): void {}
  /** `holdClaims` (true) or `releaseClaims` (false) changed the hold. */
  protected claimsHeld(_held: boolean): void {}
  /** A quit's stopping began or was called off. */
  protected stoppingChanged(): void {}

  abstract readonly identity: RunnerIdentity | null;
  abstract readonly activeCount: number;
  abstract readonly undelivered: number;
  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  abstract status(): RunnerStatus;
  abstract snapshot(): RunnerSnapshot;
  abstract summary(): ProfileSummary;
  abstract reconfigure(): void;
  abstract runtimesChanged(notice: string | null, beat?: boolean): void;
  abstract ownsTurn(id: string): boolean;
  abstract cancelTurn(id: string, reason?: string): boolean;
  abstract cancelAll(reason: string): number;
  abstract whenIdle(): Promise<void>;
  abstract drain(limitMs: number): Promise<{ canceled: number }>;
  abstract runOne(): Promise<RunOneOutcome>;
}
