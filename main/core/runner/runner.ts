import type { HostEvent } from '../../../shared/contract';
import { normalizeUserCode, type PairingClaimResponse, type PairingStartRequest, type RunnerPairingStartOutput } from '../../../shared/protocol';
import type { PairingState, RunnerSnapshot, SecretStorageInfo } from '../../../shared/runner';
import type { ControlPlaneFault, RunnerStatus } from '../../../shared/status';
import type { RunnerConnector, RunnerCredentials } from '../connectors/connector';
import { isConnectorError } from '../connectors/errors';
import { CommandFailure } from '../dispatch';
import type { Clock, Logger, PlatformInfo, TimerHandle } from '../ports';
import { noReadyRuntime, runtimeReady, type CapabilityDetector, type Capabilities, type RuntimePreference } from './capabilities';
import type { RuntimeBreaker } from './runtime-breaker';
import { buildHeartbeat } from './heartbeat-body';
import { HeartbeatLoop } from './heartbeat-loop';
import { PairingFlow, type PairingStart } from './pairing-flow';
import { importStateFile } from './state-import';
import { runnerAccount, type SecretStore } from '../secrets/secret-store';
import type { RunnerIdentity, RunnerStateStore } from './runner-state-store';
import { deriveStatus, faultReason } from './runner-status';
import type { CapacityHistory } from './telemetry';
import { SAMPLE_PERIOD_MS } from '../../../shared/telemetry';
import { errorText } from '../../../shared/errors';
import { DEFAULT_PROFILE_ID } from '../../../shared/profiles';
import { redactText } from '../../../shared/redact';

/** The settings the runner acts on (effective: stored settings plus env/flag overrides). */
export interface RunnerConfig {
  controlPlaneUrl: string;
  runnerName: string;
  runtime: RuntimePreference;
  heartbeatMs: number;
  interactiveClaimMs: number;
  maxSessions: number;
  modelAccountAlias: string;
  modelAccountState: string;
  expectedTenantId: string | null;
  /** "Run work on this machine" (`--execute` / `RUNNER_EXECUTE`); off is heartbeat-only. */
  runWork: boolean;
}

/** The slice of the SecretStore port the runner uses. */
export interface RunnerSecretStore {
  readonly backend: 'keychain' | 'file';
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
}

export interface RunnerDeps {
  clock: Clock;
  log: Logger;
  random?: () => number;
  config(): RunnerConfig;
  /** null when no secret backend works and none was chosen: pairing is refused (fail closed). */
  secrets: RunnerSecretStore | null;
  secretStorage: SecretStorageInfo;
  state: RunnerStateStore;
  connectorFor(baseUrl: string): RunnerConnector;
  capabilities: CapabilityDetector;
  /** The per-runtime circuit breaker (shared with the work side, which feeds it). */
  breaker?: RuntimeBreaker;
  history: CapacityHistory;
  platform: PlatformInfo;
  appVersion: string;
  cpuCount: number;
  emit(event: HostEvent): void;
  /** Registers a secret with the logger's redaction. */
  registerSecret(secret: string): void;
  /**
   * The seed's authenticated start (`runner.pairing.start`) when an operator is signed in;
   * null when nobody is or the server lacks it (then the unauthenticated start is used).
   */
  operatorPairingStart?(input: { name: string; platform: string }): Promise<RunnerPairingStartOutput | null>;
  /** The secrets registered so far: status text is redacted with them before anyone sees it. */
  knownSecrets?(): readonly string[];
  /** Why claims wait on a usage reserve or limit (shown as the idle status), or null. */
  claimsDeferred?(): string | null;
}

const secretAccount = runnerAccount;

/**
 * The runner host: identity, pairing, the heartbeat and capacity sampling, pause, and
 * the status everything else shows. Work (claims and turns) plugs in on top.
 */
export class Runner {
  private credentials: RunnerCredentials | null = null;
  private connector: RunnerConnector | null = null;
  private readonly pairing: PairingFlow;
  private pairingState: PairingState | null = null;
  private pairingConnector: RunnerConnector | null = null;
  private heartbeat: HeartbeatLoop | null = null;
  private revoked = false;
  private offline: { retryAt: number; message: string; fault?: ControlPlaneFault } | null = null;
  private lastOkAt: number | null = null;
  private nextAt: number | null = null;
  private failures = 0;
  private longPollMaxMs: number | null = null;
  private paused: { until: number | null; at: number; by: 'you'; note: string | null } | null = null;
  private pauseTimer: TimerHandle | null = null;
  private sampleTimer: TimerHandle | null = null;
  private active = 0;
  private undelivered = 0;
  private draining = false;
  private stopping: { deadline: number; mode: 'after-turns' | 'now' } | null = null;
  private lastStatusJson = '';
  private started = false;

  constructor(private readonly deps: RunnerDeps) {
    this.pairing = new PairingFlow({
      connector: {
        // The flow talks to whichever control plane pairing was started against.
        startPairing: (r) => this.pairingConnector!.startPairing(r),
        pollPairing: (id) => this.pairingConnector!.pollPairing(id),
        pollPairingByCode: (claim) => this.pairingConnector!.pollPairingByCode(claim),
      } as RunnerConnector,
      clock: deps.clock,
      log: deps.log.child('pairing'),
      onState: (state) => {
        this.pairingState = state;
        this.changed();
      },
      onApproved: (credentials) => this.adopt(credentials),
      ...(deps.random ? { random: deps.random } : {}),
    });
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.nameSetting = this.deps.config().runnerName.trim();
    this.restorePause();
    const identity = this.deps.state.get().identity;
    if (identity) await this.resume(identity);
    this.sample();
    void this.deps.capabilities.refresh().then(() => this.changed());
    this.changed();
  }

  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.heartbeat?.stop();
    this.pairing.cancel();
    for (const timer of [this.pauseTimer, this.sampleTimer]) if (timer !== null) this.deps.clock.clearTimeout(timer);
    this.pauseTimer = this.sampleTimer = null;
  }

  get identity(): RunnerIdentity | null {
    return this.deps.state.get().identity;
  }

  get currentCredentials(): RunnerCredentials | null {
    return this.credentials;
  }

  get currentConnector(): RunnerConnector | null {
    return this.connector;
  }

  get longPoll(): number | null {
    return this.longPollMaxMs;
  }

  get isPaused(): boolean {
    return this.paused !== null;
  }

  /**
   * Pairs this machine. With `userCode` (seed `--user-code`, or the Pairing view's "Have a
   * code from the web?") it claims that code; otherwise, when an operator is signed in, it
   * starts as the seed does with the authenticated `runner.pairing.start`, and falls back
   * to the unauthenticated device-code start.
   */
  async startPairing(options: { userCode?: string } = {}): Promise<PairingState> {
    if (this.identity) throw new CommandFailure('already_paired', 'This machine is already paired. Unpair it first.');
    if (!this.deps.secrets) {
      throw new CommandFailure('no_secret_store', this.deps.secretStorage.problem ?? 'No secure place to keep the runner secret.');
    }
    const config = this.deps.config();
    let userCode: string | undefined;
    if (options.userCode !== undefined) {
      // Codes of our shape (XXXX-XXXX) are taken case-, space- and dash-insensitively; a real
      // server's may look different and are sent as typed.
      const ours = normalizeUserCode(options.userCode);
      userCode = ours ? `${ours.slice(0, 4)}-${ours.slice(4)}` : options.userCode.trim();
      if (userCode.length === 0 || userCode.length > 64 || /\s/.test(userCode)) {
        throw new CommandFailure('invalid_code', 'That is not a pairing code: paste the code exactly as the control plane showed it.');
      }
    }
    this.revoked = false;
    this.pairingConnector = this.deps.connectorFor(config.controlPlaneUrl);
    const platform = this.deps.platform.platform;
    const request: PairingStartRequest = {
      name: config.runnerName,
      platform: platform === 'darwin' || platform === 'win32' ? platform : 'linux',
      runner_version: this.deps.appVersion,
      hostname: this.deps.platform.hostname,
    };
    let how: PairingStart = { kind: 'device' };
    if (userCode) how = { kind: 'code', userCode, verificationUri: config.controlPlaneUrl };
    else if (this.deps.operatorPairingStart) {
      try {
        const started = await this.deps.operatorPairingStart({ name: request.name, platform: request.platform });
        if (started) {
          this.deps.log.info('pairing started by the signed-in operator (runner.pairing.start)');
          how = { kind: 'started', started, verificationUri: config.controlPlaneUrl };
        }
      } catch (error) {
        this.deps.log.warn('the signed-in start of pairing failed; using the device-code start', {
          error: errorText(error),
        });
      }
    }
    await this.pairing.start(request, how);
    return this.pairing.current;
  }

  cancelPairing(): void {
    this.pairing.cancel();
  }

  /** Takes over the identity of an existing `rost runner serve` state file. */
  async importState(file: string): Promise<{ runnerId: string; notes: string[] }> {
    if (this.identity) throw new CommandFailure('already_paired', 'This machine is already paired. Unpair it first.');
    if (!this.deps.secrets) throw new CommandFailure('no_secret_store', this.deps.secretStorage.problem ?? 'No secure place to keep the runner secret.');
    const config = this.deps.config();
    const result = await importStateFile({
      file,
      secrets: this.deps.secrets as SecretStore,
      account: secretAccount,
      controlPlaneUrl: config.controlPlaneUrl,
      expectedTenantId: config.expectedTenantId,
      runnerName: config.runnerName,
      state: this.deps.state,
      now: this.deps.clock.now(),
    });
    if (!result.ok) throw new CommandFailure('import_failed', result.reason);
    this.revoked = false;
    this.deps.log.info('imported a rost runner state file', { runnerId: result.identity.runnerId });
    await this.resume(result.identity);
    this.changed();
    return { runnerId: result.identity.runnerId, notes: result.notes };
  }

  /** Revoke at the server, then forget locally. `force` forgets even if the server is unreachable. */
  async unpair(force: boolean): Promise<void> {
    const identity = this.identity;
    if (!identity) throw new CommandFailure('not_paired', 'This machine is not paired.');
    if (this.credentials && this.connector) {
      try {
        await this.connector.unpair(this.credentials);
      } catch (error) {
        if (!isConnectorError(error, 'unauthorized') && !force) {
          throw new CommandFailure(
            'unpair_failed',
            `Could not reach the control plane to revoke this runner (${errorText(error)}). Try again, or forget it on this machine only.`,
          );
        }
      }
    }
    await this.forget(identity);
    this.deps.log.info('unpaired', { runnerId: identity.runnerId });
    this.changed();
  }

  /** Stops claiming until resumed or `minutes` pass; kept in the state file so a restart keeps it. */
  async pause(minutes: number | null, note: string | null = null): Promise<void> {
    const now = this.deps.clock.now();
    const until = minutes === null ? null : now + minutes * 60_000;
    this.applyPause({ until, at: now, by: 'you', note: note?.trim() ? note.trim().slice(0, 500) : null });
    this.deps.log.info('runner paused', { until: until === null ? 'until resumed' : new Date(until).toISOString() });
    this.heartbeat?.beatNow();
    this.changed();
    this.wake();
    await this.persistPause();
  }

  async resumeWork(): Promise<void> {
    if (this.pauseTimer !== null) this.deps.clock.clearTimeout(this.pauseTimer);
    this.pauseTimer = null;
    if (!this.paused) return;
    this.paused = null;
    this.deps.breaker?.reset();
    this.deps.log.info('runner resumed');
    this.heartbeat?.beatNow();
    this.changed();
    this.wake();
    await this.persistPause();
  }

  private applyPause(pause: NonNullable<Runner['paused']>): void {
    if (this.pauseTimer !== null) this.deps.clock.clearTimeout(this.pauseTimer);
    this.pauseTimer = null;
    this.paused = pause;
    if (pause.until !== null) this.pauseTimer = this.deps.clock.setTimeout(() => void this.resumeWork(), Math.max(0, pause.until - this.deps.clock.now()));
  }

  /** A pause from before the restart holds; a timed one that ended while we were off is over. */
  private restorePause(): void {
    const saved = this.deps.state.get().pause;
    if (!saved) return;
    const until = saved.until === null ? null : Date.parse(saved.until);
    if (until !== null && until <= this.deps.clock.now()) {
      this.deps.log.info('a timed pause ended while the runner was off; resuming', { until: saved.until });
      void this.persistPause();
      return;
    }
    this.applyPause({ until, at: Date.parse(saved.at), by: saved.by, note: saved.note });
    this.deps.log.info('still paused from before the restart', { until: saved.until ?? 'until resumed' });
  }

  private async persistPause(): Promise<void> {
    const p = this.paused;
    const record = p ? { at: new Date(p.at).toISOString(), until: p.until === null ? null : new Date(p.until).toISOString(), by: p.by, note: p.note } : null;
    try {
      await this.deps.state.update((s) => ({ ...s, pause: record }));
    } catch (error) {
      this.deps.log.error('could not save the pause; it holds until this process ends', { error: errorText(error) });
    }
  }

  /** Results in the outbox, not yet taken by the control plane (the dashboard and tray show the count). */
  setUndelivered(pending: number): void {
    if (pending === this.undelivered) return;
    this.undelivered = pending;
    this.changed();
  }

  /** Work accounting, fed by the turn registry. */
  setActive(active: number): void {
    this.active = active;
    this.changed();
  }

  setDraining(draining: boolean): void {
    this.draining = draining;
    this.changed();
  }

  /** A quit is under way (see QuitPolicy): the status says what it waits for, the control plane sees paused. */
  setStopping(stopping: { deadline: number; mode: 'after-turns' | 'now' } | null): void {
    const was = this.stopping !== null;
    this.stopping = stopping;
    if (was !== (stopping !== null)) this.heartbeat?.beatNow();
    this.changed();
  }

  /** Settings changed: beat at once so the control plane sees the new name, limits, runtimes. */
  reconfigure(): void {
    this.renameIfChanged();
    this.heartbeat?.beatNow();
    this.changed();
    this.wake();
  }

  /** The runner name setting last seen; a change while paired renames the runner (the heartbeat carries `name`). */
  private nameSetting: string | null = null;

  private renameIfChanged(): void {
    const name = this.deps.config().runnerName.trim();
    const previous = this.nameSetting;
    this.nameSetting = name;
    const identity = this.identity;
    if (previous === null || previous === name || !identity || !name || identity.name === name) return;
    this.deps.log.info('renamed the runner; the next heartbeat tells the control plane', { name });
    void this.deps.state
      .update((s) => (s.identity ? { ...s, identity: { ...s.identity, name } } : s))
      .then(() => {
        this.heartbeat?.beatNow();
        this.changed();
      })
      .catch((error: unknown) => this.deps.log.warn('could not store the new runner name', { error: errorText(error) }));
  }

  /** Why no allowed runtime can take work now (not signed in, breaker open), or null. */
  notReady(): string | null {
    return noReadyRuntime(this.deps.capabilities.peek(), this.deps.config().runtime, this.deps.breaker?.state);
  }

  /** Readiness changed (a first auth failure, the breaker): the status, the heartbeat and claiming follow. */
  readinessChanged(notice: string | null = null): void {
    // The tray turns this into a notification; the window shows it on the runtimes card.
    if (notice) this.deps.emit({ event: 'runner:notice', payload: { kind: 'runtime-paused', message: redactText(notice, this.deps.knownSecrets?.() ?? []) } });
    this.heartbeat?.beatNow();
    this.changed();
    this.wake();
  }

  async refreshRuntimes(): Promise<void> {
    // "Check again": the operator says the problem is fixed.
    this.deps.breaker?.reset();
    await this.deps.capabilities.refresh();
    this.wake();
    this.heartbeat?.beatNow();
    this.changed();
  }

  /** A 401 from any runner call lands here. */
  async markRevoked(): Promise<void> {
    const identity = this.identity;
    if (!identity) return;
    this.deps.log.warn('the control plane revoked this runner; the secret was removed');
    await this.forget(identity);
    this.revoked = true;
    this.changed();
  }

  status(): RunnerStatus {
    const config = this.deps.config();
    // Reasons quote the control plane (an error code, a message): redact them like everything else.
    const status = this.rawStatus(config);
    return { ...status, reason: redactText(status.reason, this.deps.knownSecrets?.() ?? []) };
  }

  private rawStatus(config: RunnerConfig): RunnerStatus {
    return deriveStatus({
      paired: this.identity !== null && this.credentials !== null,
      pairing: this.pairingState,
      revoked: this.revoked,
      problem: this.identity && !this.credentials ? 'The runner secret is missing from the secret store. Unpair and pair again.' : null,
      offline: this.offline,
      paused: this.paused,
      draining: this.draining,
      stopping: this.stopping,
      active: this.active,
      max: config.maxSessions,
      connected: this.lastOkAt !== null,
      heartbeatOnly: !config.runWork,
      notReady: this.notReady(),
      claimsDeferred: this.deps.claimsDeferred?.() ?? null,
    });
  }

  /** Re-derives the status and snapshot (after something outside the runner changed them). */
  refreshStatus(): void {
    this.changed();
  }

  snapshot(): RunnerSnapshot {
    const identity = this.identity;
    const config = this.deps.config();
    return {
      status: this.status(),
      pairing: this.pairingState,
      identity: identity
        ? { runnerId: identity.runnerId, tenantId: identity.tenantId, name: identity.name, controlPlane: identity.controlPlaneUrl, pairedAt: identity.pairedAt }
        : null,
      secretStorage: this.deps.secretStorage,
      heartbeat: {
        lastOkAt: iso(this.lastOkAt),
        nextAt: iso(this.nextAt),
        consecutiveFailures: this.failures,
        longPoll: this.longPollMaxMs !== null,
        intervalMs: config.heartbeatMs,
      },
      runtimes: this.runtimesView(),
      modelAccount: { alias: config.modelAccountAlias.trim() || 'default', state: config.modelAccountState || 'unknown' },
      sessions: { active: this.active, max: config.maxSessions },
      results: { undelivered: this.undelivered },
      paused: this.paused ? { until: iso(this.paused.until), at: iso(this.paused.at)!, by: this.paused.by, note: this.paused.note } : null,
    };
  }

  private async adopt(credentials: PairingClaimResponse): Promise<{ runnerName: string }> {
    const config = this.deps.config();
    // As the seed: a claim answer without tenant_id belongs to the expected tenant, one without
    // a name keeps the configured name.
    if (config.expectedTenantId && credentials.tenant_id !== undefined && credentials.tenant_id !== config.expectedTenantId) {
      throw new Error(`This pairing belongs to another tenant (${credentials.tenant_id ?? 'none'}), not ${config.expectedTenantId}; nothing was stored.`);
    }
    const secrets = this.deps.secrets;
    if (!secrets) throw new Error('No secure place to keep the runner secret.');
    this.deps.registerSecret(credentials.runner_secret);
    const account = secretAccount(config.controlPlaneUrl);
    await secrets.set(account, credentials.runner_secret);
    const identity: RunnerIdentity = {
      runnerId: credentials.runner_id,
      tenantId: credentials.tenant_id ?? config.expectedTenantId ?? null,
      name: credentials.name ?? config.runnerName,
      controlPlaneUrl: config.controlPlaneUrl,
      pairedAt: new Date(this.deps.clock.now()).toISOString(),
    };
    await this.deps.state.update((s) => ({ ...s, identity }));
    await this.resume(identity);
    return { runnerName: identity.name };
  }

  private async resume(identity: RunnerIdentity): Promise<void> {
    const secret = this.deps.secrets ? await this.deps.secrets.get(secretAccount(identity.controlPlaneUrl)) : null;
    if (!secret) {
      this.deps.log.error('paired, but the runner secret is not in the secret store', { backend: this.deps.secretStorage.backend });
      return;
    }
    this.deps.registerSecret(secret);
    this.credentials = { runnerId: identity.runnerId, secret };
    this.connector = this.deps.connectorFor(identity.controlPlaneUrl);
    this.heartbeat = new HeartbeatLoop({
      connector: this.connector,
      clock: this.deps.clock,
      log: this.deps.log.child('heartbeat'),
      ...(this.deps.random ? { random: this.deps.random } : {}),
      credentials: () => this.credentials,
      heartbeatMs: () => this.deps.config().heartbeatMs,
      body: async () => this.heartbeatBody(),
      onSuccess: (response, nextAt) => {
        this.lastOkAt = this.deps.clock.now();
        this.nextAt = nextAt;
        this.failures = 0;
        this.offline = null;
        this.longPollMaxMs = response.claim?.long_poll_max_ms ?? null;
        this.changed();
        for (const listener of this.beatListeners) listener();
      },
      onFailure: ({ message, retryAt, consecutiveFailures, fault }) => {
        this.failures = consecutiveFailures;
        this.nextAt = retryAt;
        this.offline = { retryAt, fault, message: faultReason(fault, message) };
        this.changed();
      },
      onRevoked: () => void this.markRevoked(),
    });
    this.heartbeat.start();
  }

  private readonly beatListeners = new Set<() => void>();
  private readonly wakeListeners = new Set<() => void>();

  /** Called when pause, resume or settings change what the work side may do. */
  onWake(listener: () => void): () => void {
    this.wakeListeners.add(listener);
    return () => this.wakeListeners.delete(listener);
  }

  private wake(): void {
    for (const listener of this.wakeListeners) listener();
  }

  /** Called after every successful heartbeat (the seed claims right after each one). */
  onHeartbeat(listener: () => void): () => void {
    this.beatListeners.add(listener);
    return () => this.beatListeners.delete(listener);
  }

  private async heartbeatBody() {
    const config = this.deps.config();
    const capabilities = await this.deps.capabilities.get();
    return buildHeartbeat({
      name: this.identity?.name ?? config.runnerName,
      runnerVersion: this.deps.appVersion,
      // Quitting after the running turns: the control plane must not hand us more.
      paused: this.paused !== null || this.stopping !== null,
      runtime: config.runtime,
      capabilities: capabilities as Capabilities,
      tripped: this.deps.breaker?.state ?? {},
      os: { platform: this.deps.platform.platform, release: this.deps.platform.release, arch: this.deps.platform.arch },
      cpuCount: this.deps.cpuCount,
      sample: this.deps.history.latest(),
      activeSessions: this.active,
      maxSessions: config.maxSessions,
      modelAccount: { alias: config.modelAccountAlias, state: config.modelAccountState },
    });
  }

  private runtimesView(): RunnerSnapshot['runtimes'] {
    const detected = this.deps.capabilities.peek();
    if (!detected) return null;
    const tripped = this.deps.breaker?.state ?? {};
    const view = (name: 'claude' | 'codex') => {
      const cap = detected[name];
      const readiness = runtimeReady(name, cap, tripped);
      const problem = readiness.ready || !cap.installed ? undefined : (tripped[name] ?? cap.problem);
      return { ...cap, ready: readiness.ready, ...(problem ? { problem } : {}) };
    };
    return { claude: view('claude'), codex: view('codex') };
  }

  private async forget(identity: RunnerIdentity): Promise<void> {
    this.heartbeat?.stop();
    this.heartbeat = null;
    this.credentials = null;
    this.connector = null;
    this.offline = null;
    this.lastOkAt = this.nextAt = null;
    this.failures = 0;
    this.longPollMaxMs = null;
    this.pairingState = null;
    await this.deps.secrets?.delete(secretAccount(identity.controlPlaneUrl));
    await this.deps.state.update((s) => ({ ...s, identity: null }));
  }

  private sample(): void {
    const reading = this.deps.history.sample(this.deps.clock.now(), { active: this.active, max: this.deps.config().maxSessions });
    this.deps.emit({ event: 'telemetry:sample', payload: reading });
    if (this.started) this.sampleTimer = this.deps.clock.setTimeout(() => this.sample(), SAMPLE_PERIOD_MS);
  }

  private changed(): void {
    const snapshot = { ...this.snapshot(), profile: DEFAULT_PROFILE_ID };
    this.deps.emit({ event: 'runner:snapshot', payload: snapshot });
    const json = JSON.stringify(snapshot.status);
    if (json !== this.lastStatusJson) {
      this.lastStatusJson = json;
      this.deps.emit({ event: 'runner:status', payload: { ...snapshot.status, profile: DEFAULT_PROFILE_ID } });
    }
  }
}

function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
