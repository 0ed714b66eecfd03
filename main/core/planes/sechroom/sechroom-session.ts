import type { ProfileSummary } from '../../../../shared/profiles';
import type { PairingState, RunnerSnapshot } from '../../../../shared/runner';
import type { RunnerStatus } from '../../../../shared/status';
import type { SechroomSettingsView } from '../../../../shared/sechroom-profile-contract';
import { CommandFailure } from '../../base/dispatch';
import type { RunnerIdentity } from '../../runner/runner-state-store';
import type { WorkLayerOperatorDeps } from './work-layer-operator';
import { saveNewSechroomConfig, type SechroomProfileConfig } from './sechroom-config';
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
import type { CapabilityName, RunOneOutcome, SessionCapabilities } from '../../sessions/session';
import { SessionBase } from '../../sessions/session-base';

/**
 * A Sechroom profile as a host's RunnerSession (the registry knows nothing of the connector):
 * its Work Layer settings, its sign-in (device flow, tokens in the secret store under the
 * profile's account, or `SECHROOM_TOKEN`) as its pairing, the executor's loop, and every
 * task as a row of the Turns view. It has no state file to import and leaves no runtimes
 * behind (a crashed host's task turns are reported by the executor's in-flight journal,
 * their leases left to expire).
 */
export class SechroomSession extends SessionBase {
  readonly capabilities: SessionCapabilities = {
    pairing: {
      start: () => this.startPairing(),
      cancel: () => this.signIn.cancel(),
      unpair: () => this.unpair(),
    },
  };
  readonly instead: Partial<Record<CapabilityName, string>> = { stateImport: 'sign in or set SECHROOM_TOKEN' };
  private config: SechroomProfileConfig | null = null;
  private configProblem: string | null = null;
  private readonly signIn: SechroomSignIn;
  /** The executor while started and signed in, its last snapshot, and its tasks as Turns rows. */
  private readonly executor: SechroomSessionExecutor;
  private started = false;
  private readonly loader: SechroomConfigLoader;

  constructor(private readonly deps: SechroomSessionDeps) {
    super(deps);
    this.loader = SechroomConfigLoader.for(deps, (config) => this.configRecovered(config));
    this.executor = new SechroomSessionExecutor(deps, { live: () => this.events.beat(), changed: () => this.changed() });
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

  get identity(): RunnerIdentity | null {
    return sessionIdentity(this.view());
  }
  get activeCount(): number {
    return this.executor.turns.size;
  }

  get undelivered(): number {
    return this.executor.snapshot?.outboxPending ?? 0;
  }

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
    void (this.started && !this.executor.isOpen ? this.open(this.deps.autoClaim) : Promise.resolve()).then(() => this.changed());
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
    await saveNewSechroomConfig(this.deps.dir, config);
    this.loader.stop();
    this.config = config;
    this.configProblem = null;
    this.signIn.reset();
    await this.close();
    if (this.started) await this.open(this.deps.autoClaim);
    this.changed();
  }

  /** The device flow against the Work Layer's OAuth; with `SECHROOM_TOKEN` set there is nothing to sign in to. */
  private startPairing(): Promise<PairingState> {
    return this.signIn.start(this.requireConfig(), () => {
      if (this.started && !this.executor.isOpen) void this.open(this.deps.autoClaim).then(() => this.changed());
    });
  }

  /** Signs out of the Work Layer: the loop stops (deregistering the instance), the stored tokens go. */
  private async unpair(): Promise<void> {
    await this.close();
    await this.signIn.signOut();
    this.changed();
  }

  /** A pause holds the executor's claims; its end lets them go unless the host is quitting. */
  protected override pauseChanged(paused: boolean): void {
    if (paused) this.executor.pause();
    else if (!this.holding) this.executor.resume();
  }

  /** Quitting holds the executor's claims; calling it off lets them go unless paused. */
  protected override claimsHeld(held: boolean): void {
    if (held) this.executor.pause();
    else if (!this.paused) this.executor.resume();
  }

  reconfigure(): void {
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
    return this.executor.interrupt(id);
  }

  /** Quitting now: every task here is interrupted and canceled for `reason` (nothing completed, leases left to expire). */
  cancelAll(reason: string): number {
    return this.executor.interruptAll(reason);
  }

  /** The last step of a quit: up to `limitMs` for the task in flight, then it is interrupted; the loop deregisters. */
  async drain(limitMs: number): Promise<{ canceled: number }> {
    this.holding = true;
    this.executor.pause();
    this.changed();
    await this.executor.idleWithin(limitMs);
    const canceled = this.cancelAll('the runner is quitting');
    await this.close();
    return { canceled };
  }

  /** `--once` as the seed's: one claimed task run to its end, its completion tried once. */
  async runOne(): Promise<RunOneOutcome> {
    await this.close();
    await this.open(true, true);
    if (!this.executor.isOpen) return { claimed: false, error: this.status().reason };
    return this.executor.ranOnce();
  }

  whenIdle(): Promise<void> {
    return this.executor.whenIdle();
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
    if (!config || this.executor.isOpen || (!autoClaim && !once)) return;
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
}
