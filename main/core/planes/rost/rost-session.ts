/**
 * A profile's runner session against a Rost control plane: its lifecycle (start, stop, drain, quit), the
 * commands the host sends it (pairing, pause, cancel, run one), and the claim gate. The parts it is made of
 * are assembled in rost-session-wiring, its claim loop in rost-session-claims, and what it says of itself
 * (status, snapshot, heartbeat body) in rost-session-status.
 */
import { errorText } from '../../../../shared/errors';
import type { ProfileSummary } from '../../../../shared/profiles';
import type { RunnerSnapshot } from '../../../../shared/runner';
import { redactText } from '../../../../shared/redact';
import type { PlaneLane } from '../../../../shared/protocol';
import type { RunnerStatus } from '../../../../shared/status';
import type { HeartbeatTracker } from './heartbeat-tracker';
import type { IdentityKeeper } from './identity-keeper';
import type { RunnerIdentity } from '../../runner/runner-state-store';
import type { UnitLauncher } from './unit-launcher';
import type { ClaimStrategy } from '../../sessions/claim-loop';
import type { RuntimeGate } from './runtime-gate';
import type { RunOneOutcome, SessionCapabilities } from '../../sessions/session';
import { SessionBase } from '../../sessions/session-base';
import type { AnswerWatch } from './answer-watch';
import type { RostSessionDeps, SessionParts } from './rost-session-deps';
import { wireSession } from './rost-session-wiring';
import { sessionHeartbeatBody, sessionSnapshot, sessionStatus, type SessionState } from './rost-session-status';

/** A profile's runner session against a Rost control plane. */
export class RostSession extends SessionBase {
  readonly capabilities: SessionCapabilities;
  private readonly identityKeeper: IdentityKeeper;
  private readonly heartbeat: HeartbeatTracker;
  private readonly answers: AnswerWatch;
  private readonly launcher: UnitLauncher;
  private readonly loop: ClaimStrategy;
  private readonly runtimes: RuntimeGate;
  private readonly parts: SessionParts;
  private active = 0;
  private undeliveredCount = 0;
  private draining = false;
  private started = false;

  constructor(private readonly deps: RostSessionDeps) {
    super(deps);
    const parts = wireSession(
      deps,
      {
        changed: () => this.changed(),
        blocked: () => this.blocked(),
        heartbeatBody: () => sessionHeartbeatBody(deps, () => this.state()),
        identity: () => this.identity,
        undelivered: (pending) => {
          if (pending === this.undeliveredCount) return;
          this.undeliveredCount = pending;
          this.changed();
        },
        active: (active) => {
          this.active = active;
          this.changed();
        },
      },
      { events: this.events, pauseState: this.pauseState },
    );
    this.parts = parts;
    ({ identityKeeper: this.identityKeeper, heartbeat: this.heartbeat, answers: this.answers } = parts);
    ({ launcher: this.launcher, loop: this.loop, runtimes: this.runtimes } = parts);
    const keeper = this.identityKeeper;
    this.capabilities = {
      pairing: {
        start: (options = {}) => keeper.startPairing(options),
        cancel: () => keeper.cancelPairing(),
        unpair: (force) => keeper.unpair(force),
      },
      stateImport: { importState: (file) => keeper.importState(file) },
      leftovers: { stop: () => this.launcher.stopLeftovers() },
    };
  }

  get identity(): RunnerIdentity | null {
    return this.identityKeeper.identity;
  }
  get activeCount(): number {
    return this.launcher.activeCount;
  }
  get undelivered(): number {
    return this.launcher.undelivered;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.holding = this.draining = false;
    this.pauseState.restore();
    await this.identityKeeper.restore();
    await this.launcher.start();
    if (this.deps.autoClaim) this.loop.start();
    this.changed();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.loop.stop();
    this.heartbeat.stop();
    this.identityKeeper.stop();
    this.pauseState.stop();
    this.parts.storage.stop();
    this.launcher.stop();
  }

  reconfigure(): void {
    void this.identityKeeper.renameIfChanged().then((renamed) => {
      if (renamed) this.heartbeat.beatNow();
    });
    this.deps.machine.recheck();
    this.heartbeat.beatNow();
    this.changed();
  }

  runtimesChanged(notice: string | null, beat = true): void {
    if (notice) this.deps.emit({ event: 'runner:notice', payload: { kind: 'runtime-paused', message: redactText(notice, this.deps.knownSecrets()) } });
    if (beat) this.heartbeat.beatNow();
    this.changed();
  }

  ownsTurn(id: string): boolean {
    return this.launcher.has(id);
  }
  cancelTurn(id: string, reason?: string): boolean {
    return this.launcher.cancel(id, reason);
  }
  cancelAll(reason: string): number {
    return this.launcher.cancelAll(reason);
  }
  whenIdle(): Promise<void> {
    return this.launcher.whenIdle();
  }

  /** A pause that ends resets the breaker; the control plane hears of either at once. */
  protected override pauseChanged(paused: boolean): void {
    if (!paused) this.deps.breaker.reset();
    this.heartbeat.beatNow();
  }

  /** The heartbeat says at once that this runner stops taking work (or takes it again). */
  protected override stoppingChanged(): void {
    this.heartbeat.beatNow();
  }

  async drain(limitMs: number): Promise<{ canceled: number }> {
    this.holding = true;
    if (this.launcher.activeCount > 0) this.draining = true;
    this.changed();
    return this.launcher.drain(limitMs);
  }

  async runOne(): Promise<RunOneOutcome> {
    const target = this.identityKeeper.current;
    if (this.blocked() || !target) return { claimed: false, error: null };
    if (!(await this.parts.storage.check())) return { claimed: false, error: this.parts.storage.reason };
    const runtimes = this.runtimes.claimable();
    let unit;
    try {
      unit = await target.connector.claim(target.credentials, { interactiveOnly: false, runtimes });
    } catch (error) {
      return { claimed: false, error: `claim failed: ${errorText(error)}` };
    }
    if (!unit) return { claimed: false, error: null };
    this.deps.log.info('claimed a unit', { unit: unit.id, kind: unit.kind, brain: unit.brain ?? 'auto' });
    const { refused } = await this.launcher.launch(unit);
    await this.launcher.flush();
    const undelivered = this.launcher.undelivered > 0;
    return { claimed: true, error: refused ?? (undelivered ? 'the result could not be delivered yet (it stays queued)' : null) };
  }

  /** [v1] `--dry-run`: what the plane would hand this runner, nothing claimed (throws without an identity). */
  async lanes(): Promise<readonly PlaneLane[] | null> {
    const target = this.identityKeeper.current;
    if (!target) throw new Error('this runner is not paired');
    return (await target.connector.lanes?.(target.credentials)) ?? null;
  }

  status(): RunnerStatus {
    return sessionStatus(this.deps, this.parts, this.state());
  }

  snapshot(): RunnerSnapshot {
    return sessionSnapshot(this.deps, this.parts, this.state());
  }

  summary(): ProfileSummary {
    const identity = this.identity;
    return {
      ...this.profile,
      controlPlaneUrl: identity?.controlPlaneUrl ?? this.deps.settings().controlPlaneUrl,
      status: this.status(),
      runnerId: identity?.runnerId ?? null,
      paused: this.paused,
      active: this.active,
    };
  }

  /** Why this profile may not claim now, or null: what the claim loop waits on. */
  private blocked(): string | null {
    if (!this.started) return 'stopped';
    if (this.holding || this.stopping) return 'quitting';
    if (this.paused) return 'paused';
    if (!this.identityKeeper.current) return 'not paired';
    if (this.runtimes.notReady()) return 'no runtime ready';
    if (this.parts.storage.problem) return 'storage';
    if (this.runtimes.claimable().length === 0) return 'nothing to claim with';
    if (this.deps.admission && !this.deps.admission.allowsClaim()) return 'usage';
    return null;
  }

  private state(): SessionState {
    return {
      active: this.active,
      undelivered: this.undeliveredCount,
      draining: this.draining,
      stopping: this.stopping,
      paused: this.paused,
      identity: this.identity,
    };
  }

  /** Every change of state: the claim loop looks again, the window and the registry hear of it. */
  protected override changed(): void {
    this.loop.nudge();
    super.changed();
  }
}
