import type { HostEvent } from '../../../../shared/contract';
import { errorText } from '../../../../shared/errors';
import type { Profile, ProfileSummary } from '../../../../shared/profiles';
import { redactText } from '../../../../shared/redact';
import type { PairingState, RunnerSnapshot, SecretStorageInfo } from '../../../../shared/runner';
import type { RunnerStatus } from '../../../../shared/status';
import type { SechroomCredential, SechroomSettingsView } from '../../../../shared/sechroom-profile-contract';
import type { TurnView } from '../../../../shared/turns';
import { CommandFailure } from '../../base/dispatch';
import type { FetchLike } from '../../connectors/http-json';
import { SechroomRunnerSession, type SechroomSessionSnapshot } from './runner-session';
import type { MachineSlotPort } from './machine-slot';
import type { TaskWorkspacePort } from './task-workspace';
import type { AdmissionPort, RootReadyPort, SechroomTurnRunner } from './turn-runner';
import { WorkLayerClient } from './work-layer-client';
import type { WorkLayerOperatorDeps } from './work-layer-operator';
import type { Clock, Logger } from '../../base/ports';
import { PauseState } from '../../runner/pause-state';
import type { RunnerIdentity, RunnerStateStore } from '../../runner/runner-state-store';
import type { SecretStore } from '../../secrets/secret-store';
import type { TurnRegistry } from '../../work/turn-registry';
import { loadSechroomConfig, saveSechroomConfig, type SechroomProfileConfig } from './sechroom-config';
import { SechroomSignIn } from './sechroom-sign-in';
import { sechroomStatus, sechroomTelemetry } from './sechroom-status';
import type { TokenScope } from './sechroom-token-scope';
import type { RunOneOutcome, RunnerSession } from '../../sessions/session';
import { SessionEvents } from '../../sessions/session-events';

/** What one Sechroom profile's turns run on: built by the host for its settings. */
export interface SechroomPlumbing {
  turns: SechroomTurnRunner & { stop?(): Promise<void> };
  workspace?: TaskWorkspacePort;
  root?: RootReadyPort;
  admission?: AdmissionPort;
  /** The host's machine-wide cap, this profile's share of it. */
  machine?: MachineSlotPort;
}

export interface SechroomSessionDeps {
  profile: Profile;
  /** The profile's folder: sechroom.json, the outbox, the in-flight journal. */
  dir: string;
  clock: Clock;
  log: Logger;
  random?: () => number;
  registry: TurnRegistry;
  emit(event: HostEvent): void;
  onChange(): void;
  secrets: SecretStore | null;
  secretStorage: SecretStorageInfo;
  registerSecret(secret: string): void;
  knownSecrets(): readonly string[];
  fetch?: FetchLike;
  /** `SECHROOM_TOKEN` when it applies to this profile (sechroom-token-scope.ts), and where its credential comes from. */
  tokenScope(): TokenScope;
  /** The profile's state file: its pause is kept there. */
  state: RunnerStateStore;
  /** Settings the host was started with (headless flags, a fleet import): saved over the stored ones. */
  initial?: SechroomProfileConfig;
  plumbing(config: SechroomProfileConfig): SechroomPlumbing;
  /** false: claim only for `runOne` (the headless `--once`). */
  autoClaim: boolean;
  /** [v1] How long an empty offers read is held (0: poll like the seed). */
  offerWaitMs?: number;
}

/**
 * A Sechroom profile as a host's RunnerSession (the registry knows nothing of the connector):
 * its Work Layer settings, its sign-in (device flow, tokens in the secret store under the
 * profile's account, or `SECHROOM_TOKEN`), the executor session's loop, and every task as a
 * row of the Turns view.
 */
export class SechroomSession implements RunnerSession {
  private config: SechroomProfileConfig | null = null;
  private configProblem: string | null = null;
  private runner: SechroomRunnerSession | null = null;
  private plumbing: SechroomPlumbing | null = null;
  private readonly signIn: SechroomSignIn;
  private last: SechroomSessionSnapshot | null = null;
  private readonly turnIds = new Set<string>();
  private readonly idleWaiters = new Set<() => void>();
  private readonly events: SessionEvents;
  private started = false;
  private readonly pauseState: PauseState;
  private holding = false;
  private stopping: { deadline: number; mode: 'after-turns' | 'now' } | null = null;
  private name: string;

  constructor(private readonly deps: SechroomSessionDeps) {
    this.name = deps.profile.name;
    this.events = new SessionEvents({ profile: deps.profile.id, emit: (event) => deps.emit(event), onChange: () => deps.onChange() });
    this.pauseState = new PauseState({
      clock: deps.clock,
      log: deps.log,
      state: deps.state,
      onChange: (paused) => {
        if (paused) this.runner?.pause();
        else if (!this.holding) this.runner?.resume();
        this.changed();
      },
    });
    this.signIn = new SechroomSignIn({
      profile: deps.profile.id,
      envToken: () => deps.tokenScope().token,
      secrets: deps.secrets,
      secretStorage: deps.secretStorage,
      registerSecret: deps.registerSecret,
      knownSecrets: deps.knownSecrets,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      clock: deps.clock,
      log: deps.log,
      ...(deps.random ? { random: deps.random } : {}),
      onChange: () => this.changed(),
    });
  }

  get profile(): Profile {
    return { ...this.deps.profile, name: this.name };
  }

  get identity(): RunnerIdentity | null {
    const instance = this.instanceId;
    if (!instance || !this.config) return null;
    return { runnerId: instance, tenantId: this.config.tenant, name: this.config.instance.instanceKey, controlPlaneUrl: this.config.baseUrl, pairedAt: '' };
  }

  get paused(): boolean {
    return this.pauseState.current !== null;
  }

  get activeCount(): number {
    return this.turnIds.size;
  }

  get undelivered(): number {
    return this.last?.outboxPending ?? 0;
  }

  private get instanceId(): string | null {
    const status = this.last?.status;
    return status && 'instanceId' in status ? status.instanceId : null;
  }

  /** Nothing to stop: a crashed host's task turns are reported by the executor session's in-flight journal, their leases left to expire. */
  async stopLeftovers(): Promise<void> {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.pauseState.restore();
    try {
      if (this.deps.initial) await saveSechroomConfig(this.deps.dir, this.deps.initial);
      this.config = this.deps.initial ?? (await loadSechroomConfig(this.deps.dir));
    } catch (error) {
      this.configProblem = errorText(error);
      this.deps.log.error(`the Sechroom settings of this profile cannot be used: ${this.configProblem}`);
    }
    await this.open(this.deps.autoClaim);
    this.changed();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.pauseState.stop();
    this.signIn.cancel();
    await this.close();
  }

  /** New settings (the `sechroom:configure` command): saved, then the loop starts again with them. */
  async configure(config: SechroomProfileConfig): Promise<void> {
    await saveSechroomConfig(this.deps.dir, config);
    this.config = config;
    this.configProblem = null;
    this.signIn.reset();
    await this.close();
    if (this.started) await this.open(this.deps.autoClaim);
    this.changed();
  }

  /** The device flow against the Work Layer's OAuth; with `SECHROOM_TOKEN` set there is nothing to sign in to. */
  startPairing(): Promise<PairingState> {
    return this.signIn.start(this.requireConfig(), () => {
      if (this.started && !this.runner) void this.open(this.deps.autoClaim).then(() => this.changed());
    });
  }

  cancelPairing(): void {
    this.signIn.cancel();
  }

  importState(): Promise<{ runnerId: string; notes: string[] }> {
    return Promise.reject(new CommandFailure('unsupported', 'A Sechroom profile has no runner state file to import; sign in or set SECHROOM_TOKEN.'));
  }

  /** Signs out of the Work Layer: the loop stops (deregistering the instance), the stored tokens go. */
  async unpair(): Promise<void> {
    await this.close();
    await this.signIn.signOut();
    this.changed();
  }

  /** Claims nothing new (a task in flight goes on); kept in the profile's state file, a timed one ends by itself. */
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
    this.changed();
  }

  refreshStatus(): void {
    this.changed();
  }

  runtimesChanged(): void {
    this.changed();
  }

  ownsTurn(id: string): boolean {
    return this.turnIds.has(id);
  }

  /** The operator cancels a task here: its turn is interrupted, nothing is completed, its lease is left to expire (the Work view cancels on the Work Layer). */
  cancelTurn(id: string): boolean {
    return this.runner?.interrupt(id) ?? false;
  }

  /** Quitting now: the loop stops with no drain time (the turn's lease is left to expire). */
  /** Quitting now: every task here is interrupted (nothing completed, leases left to expire). */
  cancelAll(): number {
    const running = [...this.turnIds];
    for (const id of running) this.runner?.interrupt(id);
    return running.length;
  }

  whenIdle(): Promise<void> {
    if (this.turnIds.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  holdClaims(): void {
    this.holding = true;
    this.runner?.pause();
    this.changed();
  }

  releaseClaims(): void {
    if (!this.holding) return;
    this.holding = false;
    if (!this.paused) this.runner?.resume();
    this.changed();
  }

  setStopping(stopping: { deadline: number; mode: 'after-turns' | 'now' } | null): void {
    this.stopping = stopping;
    this.changed();
  }

  /** The last step of a quit: up to `limitMs` for the task in flight, then it is interrupted; the loop deregisters. */
  async drain(limitMs: number): Promise<{ canceled: number }> {
    this.holding = true;
    this.runner?.pause();
    this.changed();
    if (this.turnIds.size > 0 && limitMs > 0) {
      let timer: ReturnType<Clock['setTimeout']> | null = null;
      await Promise.race([this.whenIdle(), new Promise<void>((resolve) => (timer = this.deps.clock.setTimeout(resolve, limitMs)))]);
      if (timer !== null) this.deps.clock.clearTimeout(timer);
    }
    const canceled = this.cancelAll();
    await this.close();
    return { canceled };
  }

  /** `--once` as the seed's: one claimed task run to its end, its completion tried once. */
  async runOne(): Promise<RunOneOutcome> {
    await this.close();
    await this.open(true, true);
    const runner = this.runner;
    if (!runner) return { claimed: false, error: this.status().reason };
    const summary = await runner.finished;
    const status = this.last?.status;
    if (status?.state === 'auth_expired') return { claimed: summary.processed > 0, error: `auth expired: ${status.message}` };
    const pending = this.last?.outboxPending ?? 0;
    return {
      claimed: summary.processed > 0,
      error: summary.abandoned > 0 ? 'the task was abandoned' : pending > 0 ? 'the completion could not be delivered yet (it stays queued)' : null,
    };
  }

  onHeartbeat(listener: () => void): () => void {
    return this.events.onHeartbeat(listener);
  }

  status(): RunnerStatus {
    const status = sechroomStatus({
      config: this.config,
      configProblem: this.configProblem,
      signedIn: this.signIn.signedIn,
      pairing: this.signIn.pairing,
      snapshot: this.last,
      paused: this.pauseState.current,
      active: this.turnIds.size,
      stopping: this.stopping,
      started: this.started,
    });
    return { ...status, reason: redactText(status.reason, this.deps.knownSecrets()) };
  }

  snapshot(): RunnerSnapshot {
    const config = this.config;
    const identity = this.identity;
    return {
      profile: this.deps.profile.id,
      status: this.status(),
      pairing: this.signIn.pairing,
      identity: identity
        ? { runnerId: identity.runnerId, tenantId: identity.tenantId, name: identity.name, controlPlane: identity.controlPlaneUrl, pairedAt: identity.pairedAt }
        : null,
      secretStorage: this.deps.secretStorage,
      ...sechroomTelemetry(config, this.last),
      sessions: { active: this.turnIds.size, max: 1 },
      results: { undelivered: this.undelivered },
      paused: this.pauseState.view(),
    };
  }

  /** This profile's Work Layer for the Work view: its settings and its credential, or why there is none. */
  async workLayerAccess(): Promise<WorkLayerOperatorDeps['access']> {
    const config = this.config;
    if (!config) {
      const why = this.configProblem ? `Its Sechroom settings cannot be used: ${this.configProblem}` : 'Set its Work Layer in Settings (Sechroom instance).';
      return { ok: false, message: `This profile has no Work Layer to show yet. ${why}` };
    }
    // The executor's own bearer when it has one (the Work view polls: no secret store read each time).
    const tokens = this.signIn.current ?? (await this.signIn.source(config));
    if (!tokens) return { ok: false, message: `Sign this profile in to the Work Layer at ${config.baseUrl} to see its work here.` };
    return { ok: true, access: { baseUrl: config.baseUrl, tenant: config.tenant, tokens } };
  }

  /** The saved settings for the Settings view (no secret is in them) and where the credential comes from. */
  settingsView(): SechroomSettingsView {
    return {
      profile: this.deps.profile.id,
      config: this.config,
      problem: this.configProblem,
      credential: this.credential(),
      signedIn: this.signIn.signedIn,
    };
  }

  /** Where the credential comes from: what the executor uses now, and what its next start will use when that differs. */
  private credential(): SechroomCredential {
    const { credential } = this.deps.tokenScope();
    if (!this.signIn.usingEnvToken || credential.source === 'env') return credential;
    return { source: 'env', note: `Token from SECHROOM_TOKEN since this profile's executor started; at its next start it is not used (${credential.note})` };
  }

  summary(): ProfileSummary {
    return {
      ...this.profile,
      controlPlaneUrl: this.config?.baseUrl ?? '',
      status: this.status(),
      runnerId: this.instanceId,
      paused: this.paused,
      active: this.turnIds.size,
    };
  }

  // ---- the executor session's life ----

  private async open(autoClaim: boolean, once = false): Promise<void> {
    const config = this.config;
    if (!config || this.runner || (!autoClaim && !once)) return;
    const tokens = await this.signIn.source(config);
    if (!tokens) return;
    this.plumbing = this.deps.plumbing(config);
    const runner = new SechroomRunnerSession({
      settings: config.instance,
      client: new WorkLayerClient({ baseUrl: config.baseUrl, tenant: config.tenant, tokens, ...this.fetchOption(), knownSecrets: this.deps.knownSecrets }),
      // The turns, and the workspace, root, admission and machine ports the host made for this profile.
      ...this.plumbing,
      dataDir: this.deps.dir,
      clock: this.deps.clock,
      log: this.deps.log,
      ...(this.deps.random ? { random: this.deps.random } : {}),
      ...(once ? { once: true } : {}),
      ...(this.deps.offerWaitMs ? { offerWaitMs: this.deps.offerWaitMs } : {}),
    });
    runner.onEvent((event) => {
      if (event.event === 'turn') this.turnChanged(event.turn);
      else {
        const wasLive = this.last?.status.state === 'live';
        this.last = event.snapshot;
        if (event.snapshot.status.state === 'live' && !wasLive) this.events.beat();
        this.changed();
      }
    });
    this.runner = runner;
    if (this.paused || this.holding) runner.pause();
    await runner.start();
  }

  private async close(): Promise<void> {
    const runner = this.runner;
    const plumbing = this.plumbing;
    this.runner = null;
    this.plumbing = null;
    if (runner) await runner.stop();
    await plumbing?.turns.stop?.().catch((error: unknown) => this.deps.log.warn(`could not stop the codex app-server: ${errorText(error)}`));
  }

  private requireConfig(): SechroomProfileConfig {
    if (!this.config) throw new CommandFailure('not_configured', 'Set this profile’s Work Layer and instance first (sechroom:configure).');
    return this.config;
  }

  private fetchOption(): { fetch?: FetchLike } {
    return this.deps.fetch ? { fetch: this.deps.fetch } : {};
  }

  private turnChanged(turn: TurnView): void {
    const view: TurnView = { ...turn, profile: this.deps.profile.id };
    const { registry } = this.deps;
    if (view.endedAt === null) {
      this.turnIds.add(view.id);
      if (registry.get(view.id)) registry.patch(view.id, view);
      else registry.add(view);
    } else {
      this.turnIds.delete(view.id);
      if (registry.get(view.id)) registry.finish(view.id, view);
      else registry.patchHistory(view.id, view, view);
      if (this.turnIds.size === 0) {
        const waiters = [...this.idleWaiters];
        this.idleWaiters.clear();
        waiters.forEach((done) => done());
      }
    }
    this.changed();
  }

  private changed(): void {
    this.events.changed(this.snapshot());
  }
}
