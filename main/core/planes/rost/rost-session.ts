import type { HostEvent } from '../../../../shared/contract';
import { errorText } from '../../../../shared/errors';
import type { Profile, ProfileSummary } from '../../../../shared/profiles';
import type { RunnerPairingStartOutput } from '../../../../shared/protocol';
import type { PairingState, RunnerSnapshot, SecretStorageInfo } from '../../../../shared/runner';
import { redactText } from '../../../../shared/redact';
import { effectiveCadence, type Settings } from '../../../../shared/settings';
import type { RunnerStatus } from '../../../../shared/status';
import type { ClaimOptions, RunnerConnector } from './connector';
import type { Clock, Logger, PlatformInfo } from '../../base/ports';
import type { Capabilities, CapabilityDetector } from '../../runner/capabilities';
import { buildHeartbeat } from './heartbeat-body';
import { HeartbeatTracker } from './heartbeat-tracker';
import { IdentityKeeper, type RunnerSecretStore } from './identity-keeper';
import { PauseState } from '../../runner/pause-state';
import type { RunnerIdentity, RunnerStateStore } from '../../runner/runner-state-store';
import type { RuntimeBreaker } from '../../runner/runtime-breaker';
import { deriveStatus } from './runner-status';
import type { CapacityHistory } from '../../runner/telemetry';
import type { ClaimAdmission } from '../../work/claim-admission';
import type { UnitExecutor } from '../../exec/executor-port';
import { ResumeCache } from './resume-cache';
import type { TurnRegistry } from '../../work/turn-registry';
import { UnitLauncher } from './unit-launcher';
import { ClaimLoop, type ClaimStrategy } from '../../sessions/claim-loop';
import type { MachineSlots } from '../../sessions/machine-slots';
import { SerialClaimLoop } from './serial-claim-loop';
import { RuntimeGate } from './runtime-gate';
import type { RunOneOutcome, RunnerSession } from '../../sessions/session';
import { SessionEvents } from '../../sessions/session-events';
import { AnswerWatch, planeOffline, watchedConnector } from './answer-watch';

export interface RostSessionDeps {
  profile: Profile;
  /** The profile's folder: its state file, outbox and running journal. */
  dir: string;
  clock: Clock;
  log: Logger;
  random?: () => number;
  /** The profile's effective settings (its own over the host's). */
  settings(): Settings;
  /** The heartbeat's model account state (measured, unless the setting overrides it). */
  accountState(): string;
  secrets: RunnerSecretStore | null;
  secretStorage: SecretStorageInfo;
  /** The profile's secret-store account for a control plane. */
  account(controlPlaneUrl: string): string;
  state: RunnerStateStore;
  connectorFor(baseUrl: string): RunnerConnector;
  capabilities: CapabilityDetector;
  breaker: RuntimeBreaker;
  history: CapacityHistory;
  machine: MachineSlots;
  registry: TurnRegistry;
  executor: UnitExecutor;
  admission?: ClaimAdmission;
  platform: PlatformInfo;
  appVersion: string;
  cpuCount: number;
  emit(event: HostEvent): void;
  registerSecret(secret: string): void;
  knownSecrets(): readonly string[];
  registerTurnSecret?(secret: string): () => void;
  runtimeEnv?: Record<string, string>;
  operatorPairingStart?(input: { name: string; platform: string }): Promise<RunnerPairingStartOutput | null>;
  /** Why claims wait on a usage reserve or limit, or null. */
  claimsDeferred?(): string | null;
  /** `seed`: the seed CLI's serial cadence (the benchmark's baseline). */
  strategy: 'adaptive' | 'seed';
  /** false: claim only when asked (`runOne`, for `--once`). */
  autoClaim: boolean;
  /** The status or the snapshot changed (the registry tells the switcher and the tray). */
  onChange(): void;
  /** A runtime's readiness changed here (auth failure, breaker): every profile looks again. */
  onRuntimes(notice: string | null): void;
}

/** A profile's runner session against a Rost control plane. */
export class RostSession implements RunnerSession {
  private readonly identityKeeper: IdentityKeeper;
  private readonly heartbeat: HeartbeatTracker;
  private readonly answers: AnswerWatch;
  private readonly pauseState: PauseState;
  private readonly launcher: UnitLauncher;
  private readonly loop: ClaimStrategy;
  private readonly events: SessionEvents;
  private readonly runtimes: RuntimeGate;
  private active = 0;
  private undeliveredCount = 0;
  private holding = false;
  private draining = false;
  private stopping: { deadline: number; mode: 'after-turns' | 'now' } | null = null;
  private started = false;
  private name: string;

  constructor(private readonly deps: RostSessionDeps) {
    this.name = deps.profile.name;
    this.events = new SessionEvents({ profile: deps.profile.id, emit: (event) => deps.emit(event), onChange: () => deps.onChange() });
    this.runtimes = new RuntimeGate(deps.capabilities, deps.breaker, deps.settings, deps.log);
    const log = deps.log;
    const random = deps.random ? { random: deps.random } : {};
    this.heartbeat = new HeartbeatTracker({
      clock: deps.clock,
      log: log.child('heartbeat'),
      ...random,
      heartbeatMs: () => deps.settings().heartbeatMs,
      credentials: () => this.identityKeeper.current?.credentials ?? null,
      body: () => this.heartbeatBody(),
      onRevoked: () => void this.identityKeeper.markRevoked(),
      onChange: () => this.changed(),
      onBeat: () => {
        this.launcher.resumeDelivery();
        this.loop.heartbeat();
        this.events.beat();
      },
    });
    this.answers = new AnswerWatch({ clock: deps.clock, onChange: () => this.changed() });
    this.identityKeeper = new IdentityKeeper({
      clock: deps.clock,
      log,
      ...random,
      config: () => {
        const s = deps.settings();
        return { controlPlaneUrl: s.controlPlaneUrl, runnerName: s.runnerName, expectedTenantId: s.expectedTenantId ?? null };
      },
      secrets: deps.secrets,
      secretStorage: deps.secretStorage,
      account: deps.account,
      state: deps.state,
      connectorFor: (url) => watchedConnector(deps.connectorFor(url), this.answers),
      platform: deps.platform,
      appVersion: deps.appVersion,
      registerSecret: deps.registerSecret,
      ...(deps.operatorPairingStart ? { operatorPairingStart: deps.operatorPairingStart } : {}),
      onConnected: (connector) => {
        this.heartbeat.start(connector);
        this.loop.nudge();
      },
      onForgotten: () => this.heartbeat.stop(),
      onChange: () => this.changed(),
    });
    this.pauseState = new PauseState({
      clock: deps.clock,
      log,
      state: deps.state,
      onChange: (paused) => {
        if (!paused) deps.breaker.reset();
        this.heartbeat.beatNow();
        this.changed();
      },
    });
    this.launcher = new UnitLauncher({
      dir: deps.dir,
      clock: deps.clock,
      log: log.child('work'),
      ...random,
      onUndelivered: (pending) => {
        if (pending === this.undeliveredCount) return;
        this.undeliveredCount = pending;
        this.changed();
      },
      host: {
        profile: deps.profile.id,
        current: () => this.identityKeeper.current,
        tenantId: () => this.identity?.tenantId ?? null,
        controlPlaneUrl: () => this.identity?.controlPlaneUrl ?? null,
        runtime: () => deps.settings().runtime,
        markRevoked: () => void this.identityKeeper.markRevoked(),
        readinessChanged: (notice) => deps.onRuntimes(notice),
        activeChanged: (active) => {
          this.active = active;
          this.changed();
        },
      },
      registry: deps.registry,
      resume: new ResumeCache(deps.state, () => deps.clock.now()),
      executor: deps.executor,
      capabilities: deps.capabilities,
      breaker: deps.breaker,
      knownSecrets: deps.knownSecrets,
      ...(deps.registerTurnSecret ? { registerTurnSecret: deps.registerTurnSecret } : {}),
      ...(deps.runtimeEnv ? { runtimeEnv: deps.runtimeEnv } : {}),
      ...(deps.admission ? { admission: deps.admission } : {}),
    });
    const loopDeps = {
      clock: deps.clock,
      log: log.child('claim'),
      ...random,
      profile: deps.profile.id,
      machine: deps.machine,
      maxSessions: () => deps.settings().maxSessions,
      blocked: () => this.blocked(),
      longPollMaxMs: () => this.heartbeat.longPoll,
      interactiveClaimMs: () => effectiveCadence(deps.settings()).interactiveClaimMs,
      claim: async (options: { interactiveOnly: boolean; waitMs?: number; signal?: AbortSignal }) => {
        const target = this.identityKeeper.current;
        const runtimes = this.runtimes.claimable();
        if (!target || runtimes.length === 0) return null;
        const claim = (heartbeat?: ClaimOptions['heartbeat']) =>
          target.connector.claim(target.credentials, { ...options, runtimes, ...(heartbeat ? { heartbeat } : {}) });
        // [v1] Where offered, the held claim carries the heartbeat: one request per long-poll while idle.
        const unit = options.waitMs !== undefined && this.heartbeat.carriesHeartbeat ? await this.heartbeat.carrying(claim) : await claim();
        if (unit) log.info('claimed a unit', { unit: unit.id, kind: unit.kind, brain: unit.brain ?? 'auto' });
        return unit;
      },
      launch: async (unit: Parameters<UnitLauncher['launch']>[0], slotFree?: () => void) => {
        await this.launcher.launch(unit, slotFree);
      },
      revoked: () => void this.identityKeeper.markRevoked(),
    };
    this.loop = deps.strategy === 'seed' ? new SerialClaimLoop(loopDeps) : new ClaimLoop(loopDeps);
  }

  get profile(): Profile {
    return { ...this.deps.profile, name: this.name };
  }
  get identity(): RunnerIdentity | null {
    return this.identityKeeper.identity;
  }
  get paused(): boolean {
    return this.pauseState.current !== null;
  }
  get activeCount(): number {
    return this.launcher.activeCount;
  }
  get undelivered(): number {
    return this.launcher.undelivered;
  }

  stopLeftovers(): Promise<void> {
    return this.launcher.stopLeftovers();
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
    this.launcher.stop();
  }

  startPairing(options: { userCode?: string } = {}): Promise<PairingState> {
    return this.identityKeeper.startPairing(options);
  }
  cancelPairing(): void {
    this.identityKeeper.cancelPairing();
  }
  importState(file: string): Promise<{ runnerId: string; notes: string[] }> {
    return this.identityKeeper.importState(file);
  }
  unpair(force: boolean): Promise<void> {
    return this.identityKeeper.unpair(force);
  }
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

  reconfigure(): void {
    void this.identityKeeper.renameIfChanged().then((renamed) => {
      if (renamed) this.heartbeat.beatNow();
    });
    this.deps.machine.recheck();
    this.heartbeat.beatNow();
    this.changed();
  }

  refreshStatus(): void {
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

  holdClaims(): void {
    this.holding = true;
    this.changed();
  }
  releaseClaims(): void {
    if (!this.holding) return;
    this.holding = false;
    this.changed();
  }
  setStopping(stopping: { deadline: number; mode: 'after-turns' | 'now' } | null): void {
    const was = this.stopping !== null;
    this.stopping = stopping;
    if (was !== (stopping !== null)) this.heartbeat.beatNow();
    this.changed();
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

  onHeartbeat(listener: () => void): () => void {
    return this.events.onHeartbeat(listener);
  }

  status(): RunnerStatus {
    const s = this.deps.settings();
    const status = deriveStatus({
      paired: this.identity !== null && this.identityKeeper.current !== null,
      pairing: this.identityKeeper.pairingView,
      revoked: this.identityKeeper.revoked,
      problem: this.identityKeeper.problem,
      offline: planeOffline(this.heartbeat, this.answers),
      paused: this.pauseState.current,
      draining: this.draining,
      stopping: this.stopping,
      active: this.active,
      max: s.maxSessions,
      connected: this.heartbeat.connected,
      heartbeatOnly: !s.runWork,
      notReady: this.runtimes.notReady(),
      claimsDeferred: this.deps.claimsDeferred?.() ?? null,
    });
    // Reasons quote the control plane (an error code, a message): redact them like everything else.
    return { ...status, reason: redactText(status.reason, this.deps.knownSecrets()) };
  }

  snapshot(): RunnerSnapshot {
    const s = this.deps.settings();
    return {
      profile: this.deps.profile.id,
      status: this.status(),
      pairing: this.identityKeeper.pairingView,
      identity: this.identityKeeper.view(),
      secretStorage: this.deps.secretStorage,
      heartbeat: this.heartbeat.view(),
      runtimes: this.runtimes.view(),
      modelAccount: { alias: s.modelAccountAlias.trim() || 'default', state: this.deps.accountState() || 'unknown' },
      sessions: { active: this.active, max: s.maxSessions },
      results: { undelivered: this.undeliveredCount },
      paused: this.pauseState.view(),
    };
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
    if (this.runtimes.claimable().length === 0) return 'nothing to claim with';
    if (this.deps.admission && !this.deps.admission.allowsClaim()) return 'usage';
    return null;
  }

  private async heartbeatBody() {
    const s = this.deps.settings();
    const capabilities = await this.deps.capabilities.get();
    return buildHeartbeat({
      name: this.identity?.name ?? s.runnerName,
      runnerVersion: this.deps.appVersion,
      // Quitting after the running turns: the control plane must not hand us more.
      paused: this.paused || this.stopping !== null,
      runtime: s.runtime,
      capabilities: capabilities as Capabilities,
      tripped: this.deps.breaker.state,
      os: { platform: this.deps.platform.platform, release: this.deps.platform.release, arch: this.deps.platform.arch },
      cpuCount: this.deps.cpuCount,
      // The machine's capacity, the same in every profile's heartbeat.
      sample: this.deps.history.latest(),
      activeSessions: this.active,
      maxSessions: s.maxSessions,
      modelAccount: { alias: s.modelAccountAlias, state: this.deps.accountState() },
    });
  }

  /** Every change of state: the claim loop looks again, the window and the registry hear of it. */
  private changed(): void {
    this.loop.nudge();
    this.events.changed(this.snapshot());
  }
}
