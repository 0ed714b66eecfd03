import type { Profile, ProfileSummary } from '../../../../shared/profiles';
import type { PairingState, RunnerSnapshot } from '../../../../shared/runner';
import type { RunnerStatus } from '../../../../shared/status';
import type { SechroomSettingsView } from '../../../../shared/sechroom-profile-contract';
import { CommandFailure } from '../../base/dispatch';
import { PauseState } from '../../runner/pause-state';
import type { RunnerIdentity } from '../../runner/runner-state-store';
import type { WorkLayerOperatorDeps } from './work-layer-operator';
import { saveSechroomConfig, type SechroomProfileConfig } from './sechroom-config';
import { SechroomConfigLoader } from './sechroom-config-loader';
import type { SechroomSessionDeps } from './sechroom-session-deps';
import { SechroomSessionExecutor } from './sechroom-session-executor';
import {
  sessionIdentity,
  sessionSettingsView,
  sessionSnapshot,
  sessionStatus,
  sessionSummary,
  sessionWorkLayerAccess,
  type SechroomSessionState,
} from './sechroom-session-views';
import { SechroomSignIn } from './sechroom-sign-in';
import type { RunOneOutcome, RunnerSession } from '../../sessions/session';
import { SessionEvents } from '../../sessions/session-events';

/**
 * A Sechroom profile as a host's RunnerSession (the registry knows nothing of the connector):
 * its Work Layer settings, its sign-in (device flow, tokens in the secret store under the
 * profile's account, or `SECHROOM_TOKEN`), the executor session's loop, and every task as a
 * row of the Turns view.
 */
export class SechroomSession implements RunnerSession {
  private config: SechroomProfileConfig | null = null;
  private configProblem: string | null = null;
  private readonly signIn: SechroomSignIn;
  /** The executor while started and signed in, its last snapshot, and its tasks as Turns rows. */
  private readonly executor: SechroomSessionExecutor;
  private readonly events: SessionEvents;
  private started = false;
  private readonly pauseState: PauseState;
  private readonly loader: SechroomConfigLoader;
  private holding = false;
  private stopping: { deadline: number; mode: 'after-turns' | 'now' } | null = null;
  private name: string;

  constructor(private readonly deps: SechroomSessionDeps) {
    this.name = deps.profile.name;
    this.loader = SechroomConfigLoader.for(deps, (config) => this.configRecovered(config));
    this.events = new SessionEvents({ profile: deps.profile.id, emit: (event) => deps.emit(event), onChange: () => deps.onChange() });
    this.executor = new SechroomSessionExecutor(deps, { live: () => this.events.beat(), changed: () => this.changed() });
    this.pauseState = new PauseState({
      clock: deps.clock,
      log: deps.log,
      state: deps.state,
      onChange: (paused) => {
        if (paused) this.executor.current?.pause();
        else if (!this.holding) this.executor.current?.resume();
        this.changed();
      },
    });
    this.signIn = new SechroomSignIn({
      profile: deps.profile.id,
      envToken: () => deps.tokenScope().token,
      envRefreshToken: () => deps.tokenScope().refreshToken,
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
    return sessionIdentity(this.view());
  }
  get paused(): boolean {
    return this.pauseState.current !== null;
  }
  get activeCount(): number {
    return this.executor.turns.size;
  }

  get undelivered(): number {
    return this.executor.snapshot?.outboxPending ?? 0;
  }

  /** Nothing to stop: a crashed host's task turns are reported by the executor session's in-flight journal, their leases left to expire. */
  async stopLeftovers(): Promise<void> {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.pauseState.restore();
    ({ config: this.config, problem: this.configProblem } = await this.loader.load());
    await this.open(this.deps.autoClaim);
    this.changed();
  }

  /** The settings file works again after a fault: use what it holds. */
  private configRecovered(config: SechroomProfileConfig | null): void {
    [this.config, this.configProblem] = [config, null];
    void (this.started && !this.executor.current ? this.open(this.deps.autoClaim) : Promise.resolve()).then(() => this.changed());
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.pauseState.stop();
    this.loader.stop();
    this.signIn.cancel();
    await this.close();
  }

  /** New settings (the `sechroom:configure` command): saved, then the loop starts again with them. */
  async configure(config: SechroomProfileConfig): Promise<void> {
    await saveSechroomConfig(this.deps.dir, config);
    this.loader.stop();
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
      if (this.started && !this.executor.current) void this.open(this.deps.autoClaim).then(() => this.changed());
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
    return this.executor.turns.has(id);
  }

  /** The operator cancels a task here: its turn is interrupted, nothing is completed, its lease is left to expire (the Work view cancels on the Work Layer). */
  cancelTurn(id: string): boolean {
    return this.executor.current?.interrupt(id) ?? false;
  }

  /** Quitting now: every task here is interrupted (nothing completed, leases left to expire). */
  cancelAll(): number {
    return this.executor.interruptAll();
  }

  holdClaims(): void {
    this.holding = true;
    this.executor.current?.pause();
    this.changed();
  }

  releaseClaims(): void {
    if (!this.holding) return;
    this.holding = false;
    if (!this.paused) this.executor.current?.resume();
    this.changed();
  }

  setStopping(stopping: { deadline: number; mode: 'after-turns' | 'now' } | null): void {
    this.stopping = stopping;
    this.changed();
  }

  /** The last step of a quit: up to `limitMs` for the task in flight, then it is interrupted; the loop deregisters. */
  async drain(limitMs: number): Promise<{ canceled: number }> {
    this.holding = true;
    this.executor.current?.pause();
    this.changed();
    await this.executor.idleWithin(limitMs);
    const canceled = this.cancelAll();
    await this.close();
    return { canceled };
  }

  /** `--once` as the seed's: one claimed task run to its end, its completion tried once. */
  async runOne(): Promise<RunOneOutcome> {
    await this.close();
    await this.open(true, true);
    if (!this.executor.current) return { claimed: false, error: this.status().reason };
    return this.executor.ranOnce();
  }

  whenIdle(): Promise<void> {
    return this.executor.whenIdle();
  }

  onHeartbeat(listener: () => void): () => void {
    return this.events.onHeartbeat(listener);
  }

  status(): RunnerStatus {
    return sessionStatus(this.view());
  }

  snapshot(): RunnerSnapshot {
    return sessionSnapshot(this.view());
  }

  /** This profile's Work Layer for the Work view: its settings and its credential, or why there is none. */
  workLayerAccess(): Promise<WorkLayerOperatorDeps['access']> {
    return sessionWorkLayerAccess(this.view());
  }

  /** The saved settings for the Settings view (no secret is in them) and where the credential comes from. */
  settingsView(): SechroomSettingsView {
    return sessionSettingsView(this.view());
  }

  summary(): ProfileSummary {
    return sessionSummary(this.view());
  }

  // ---- the executor session's life ----

  private async open(autoClaim: boolean, once = false): Promise<void> {
    const config = this.config;
    if (!config || this.executor.current || (!autoClaim && !once)) return;
    const tokens = await this.signIn.source(config);
    if (!tokens) return;
    await this.executor.open(config, tokens, once, this.paused || this.holding);
  }

  private close(): Promise<void> {
    return this.executor.close();
  }

  private requireConfig(): SechroomProfileConfig {
    if (!this.config) throw new CommandFailure('not_configured', 'Set this profile’s Work Layer and instance first (sechroom:configure).');
    return this.config;
  }

  private view(): SechroomSessionState {
    return {
      deps: this.deps,
      profile: this.profile,
      config: this.config,
      configProblem: this.configProblem,
      signIn: this.signIn,
      last: this.executor.snapshot,
      instanceId: this.executor.instanceId,
      pauseState: this.pauseState,
      active: this.executor.turns.size,
      stopping: this.stopping,
      started: this.started,
    };
  }

  private changed(): void {
    this.events.changed(this.snapshot());
  }
}
