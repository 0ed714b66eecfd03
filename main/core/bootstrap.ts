import os from 'node:os';
import path from 'node:path';
import type { SettingKey, SettingsPatch } from '../../shared/settings';
import { createHandlers, settingsView } from './commands';
import type { FetchLike } from './connectors/http-json';
import { RostRunnerConnector } from './connectors/rost/rost-runner-connector';
import { EventHub } from './event-hub';
import { createHost, type Host } from './host';
import { createLogger } from './logging/logger';
import { OperatorService } from './operator';
import { hostPaths } from './paths';
import { systemClock, type Clock, type DesktopPort, type Logger, type PlatformInfo } from './ports';
import { CapabilityDetector } from './runner/capabilities';
import { CapabilitiesCache } from './runner/capabilities-cache';
import { RuntimeBreaker } from './runner/runtime-breaker';
import { createCommandRunner, type CommandRunner } from './runner/process-runner';
import { Runner, type RunnerConfig } from './runner/runner';
import { RunnerStateStore } from './runner/runner-state-store';
import { CapacityHistory, nodeSystemProbe, type SystemProbe } from './runner/telemetry';
import { openSecretStore, type OpenSecretStoreResult } from './secrets/open-secret-store';
import { createConfSettingsBackend } from './settings/conf-settings-backend';
import { createSettingsStore, type PersistentSettingsStore, type SettingsBackend } from './settings/settings-store';
import { LocalRuntimeExecutor } from './exec/executor';
import { IsolationProbe, commandWorks, parseAllowList } from './exec/isolation';
import type { UnitExecutor } from './work/executor-port';
import { ResultOutbox } from './work/outbox';
import { ResumeCache } from './work/resume-cache';
import { RunningJournal } from './work/running-journal';
import { TurnRegistry } from './work/turn-registry';
import { TurnHistoryStore } from './work/turn-history-store';
import { HISTORY_LIMIT } from '../../shared/turns';
import { WorkManager } from './work/work-manager';
import { QuitPolicy, type QuitMode, type QuitOutcome } from './quit-policy';
import { AppServerSupport } from './exec/codex-app-server/support';
import { createUsage } from './usage/usage-wiring';

export interface CoreOptions {
  mode: 'electron' | 'headless';
  appName: string;
  appVersion: string;
  dataDir: string;
  /** Electron's and Node's own versions; defaults to this process's. */
  platform?: PlatformInfo;
  clock?: Clock;
  random?: () => number;
  /** Electron passes electron-store; headless uses conf in the data directory. */
  settingsBackend?: SettingsBackend;
  /** Env and flag overrides of the headless host: applied, never saved. */
  overrides?: SettingsPatch;
  overrideSources?: Partial<Record<SettingKey, string>>;
  /** Opt-in to the owner-only file store where no keychain works. */
  allowFileSecretStore?: boolean;
  /** Tests inject these; production uses the real ones. */
  secretStore?: OpenSecretStoreResult;
  fetch?: FetchLike;
  commandRunner?: CommandRunner;
  systemProbe?: SystemProbe;
  runtimeBinaries?: { claude: string; codex: string };
  executor?: UnitExecutor;
  /** The desktop shell's powers (open a link, a folder); absent headless. */
  desktop?: DesktopPort;
  /** Extra env for runtime processes (tests point the CLIs at model stubs). */
  runtimeEnv?: Record<string, string>;
  /** Which sandbox turns run in; default: the strongest this machine has (probed). */
  isolationProbe?: IsolationProbe;
  workStrategy?: 'adaptive' | 'seed';
  /** false: claim only when asked (`work.runOne()`, the headless `--once`). Default true. */
  workAutoClaim?: boolean;
  /** Start runtimes through the parent-death watch (default true where supported; tests of the restart path turn it off). */
  parentDeathWatch?: boolean;
  /** Write rotating log files (default true). */
  logFiles?: boolean;
}

export interface Core {
  host: Host;
  log: Logger;
  settings: PersistentSettingsStore;
  runner: Runner;
  work: WorkManager;
  /** The runtime detection the runner and the work side share (`await capabilities.get()` waits for the first). */
  capabilities: CapabilityDetector;
  /**
   * The quit policy (shells call this, never shutdown): `after-turns` waits up to the
   * quitDrainMs setting for running turns, `now` cancels them; resolves once stopped.
   */
  quit(mode: QuitMode): Promise<QuitOutcome>;
  /** Called once when a quit begins, from any source (a command from the window, a signal, the tray). */
  onQuit(listener: (mode: QuitMode) => void): () => void;
  /** The longest a quit may take before its turns are canceled (the effective quitDrainMs). */
  quitDrainMs(): number;
  /** The last step of a quit (and a test's tear-down): drain for up to `limitMs`, then stop everything. */
  shutdown(limitMs?: number): Promise<void>;
}

export function currentPlatform(): PlatformInfo {
  return {
    platform: process.platform,
    arch: process.arch,
    release: os.release(),
    hostname: os.hostname(),
    versions: {
      node: process.versions.node,
      electron: process.versions.electron ?? null,
      chrome: process.versions.chrome ?? null,
    },
  };
}

/** The composition root: builds the core the same way for both entries. */
export async function bootstrapCore(options: CoreOptions): Promise<Core> {
  const clock = options.clock ?? systemClock;
  const platform = options.platform ?? currentPlatform();
  const paths = hostPaths(options.dataDir);
  const logging = await createLogger({ dir: options.logFiles === false ? null : paths.logDir, level: 'debug' });
  const log = logging.logger;
  const knownSecrets = new Set<string>();
  const registerSecret = (secret: string) => {
    knownSecrets.add(secret);
    logging.addSecret(secret);
  };
  const secretList = () => [...knownSecrets];
  const hub = new EventHub(clock);

  const settings = createSettingsStore({
    backend: options.settingsBackend ?? createConfSettingsBackend({ dir: paths.dataDir }),
    hostname: platform.hostname,
    ...(options.overrides ? { overrides: options.overrides } : {}),
    onWarning: (message) => log.warn(message),
  });

  const secrets =
    options.secretStore ??
    (await openSecretStore({
      service: 'Runner Tray',
      dataDir: paths.dataDir,
      preferred: settings.get().secretBackend,
      allowFileStore: options.allowFileSecretStore ?? settings.get().secretBackend === 'file',
    }));
  if (!secrets.ok) log.warn('no secret store: pairing is refused until one works', { reason: secrets.reason });

  const state = new RunnerStateStore(path.join(paths.dataDir, 'runner-state.json'));
  const stateLoad = await state.load();
  if (stateLoad.warning) log.warn(stateLoad.warning);

  const history = new CapacityHistory(options.systemProbe ?? nodeSystemProbe);
  const config = (): RunnerConfig => {
    const s = settings.get();
    return {
      controlPlaneUrl: s.controlPlaneUrl,
      runnerName: s.runnerName,
      runtime: s.runtime,
      heartbeatMs: s.heartbeatMs,
      interactiveClaimMs: Math.min(s.interactiveClaimMs, s.heartbeatMs),
      maxSessions: s.maxSessions,
      modelAccountAlias: s.modelAccountAlias,
      modelAccountState: usage.accountState(),
      expectedTenantId: s.expectedTenantId ?? null,
      runWork: s.runWork,
    };
  };
  // Readiness is checked with the env the runtimes run with (their HOME holds their login).
  const runtimeEnv = { ...process.env, ...options.runtimeEnv };
  const commandRunner = options.commandRunner ?? createCommandRunner(runtimeEnv);
  const isolation =
    options.isolationProbe ?? new IsolationProbe({ platform: process.platform, which: (name) => commandRunner.which(name), works: commandWorks });
  const capabilities = new CapabilityDetector(
    commandRunner,
    clock,
    options.runtimeBinaries,
    runtimeEnv,
    () => isolation.refresh(),
    new CapabilitiesCache(path.join(paths.dataDir, 'capabilities.json')),
  );
  const breaker = new RuntimeBreaker();
  const appServerSupport = new AppServerSupport(commandRunner);
  const localExecutor = new LocalRuntimeExecutor({
    workRoot: path.join(paths.dataDir, 'turns'),
    log: log.child('exec'),
    clock,
    clientVersion: options.appVersion,
    ...(options.parentDeathWatch !== undefined ? { parentDeathWatch: options.parentDeathWatch } : {}),
    codexDriver: async (binary) => {
      const choice = settings.get().codexDriver;
      if (choice !== 'auto') return choice;
      return (await appServerSupport.check(binary)) ? 'app-server' : 'exec';
    },
    isolation: {
      tools: () => isolation.get(),
      extraEnvAllow: () => parseAllowList(settings.get().runtimeEnvAllow),
      ownConfig: () => settings.get().useOwnAgentConfig,
      // Turns live in dataDir/turns: the sandbox shows only each turn's own folder of it.
      hidden: [paths.dataDir],
    },
  });
  const usage = createUsage({
    dataDir: paths.dataDir,
    clock,
    log,
    settings: () => settings.get(),
    stateOverridden: () => options.overrideSources?.modelAccountState !== undefined,
    capabilities,
    executor: options.executor ?? localExecutor,
    probeCodex: async () => {
      const codex = (await capabilities.get()).codex;
      if (!codex.installed || !codex.path) return null;
      return localExecutor.readCodexRateLimits(codex.path, options.runtimeEnv ?? {}, secretList());
    },
    emit: (event) => hub.emit(event),
  });
  await usage.start();
  const runner = new Runner({
    clock,
    log: log.child('runner'),
    ...(options.random ? { random: options.random } : {}),
    config,
    secrets: secrets.ok ? secrets.store : null,
    secretStorage: secrets.ok
      ? { backend: secrets.backend, warning: secrets.warning ?? null, problem: null }
      : { backend: 'none', warning: null, problem: secrets.reason },
    state,
    connectorFor: (baseUrl) => new RostRunnerConnector({ baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}), knownSecrets: secretList }),
    capabilities,
    breaker,
    history,
    platform,
    appVersion: options.appVersion,
    cpuCount: os.cpus().length,
    emit: (event) => hub.emit(event),
    registerSecret,
    operatorPairingStart: (input) => operator.runnerPairingStart(input),
    knownSecrets: secretList,
    claimsDeferred: () => usage.claimsDeferred(),
  });
  const unsubscribeUsage = usage.service.onChange(() => runner.refreshStatus());
  const unsubscribeSettings = settings.onChange(() => {
    usage.service.refresh();
    runner.reconfigure();
    // Every window, the tray and the login item follow the stored settings, whoever changed them.
    hub.emit({ event: 'settings:changed', payload: settingsView(settings, options.overrideSources ?? {}) });
  });

  // Finished turns outlive the process: the Turns view shows them after a restart.
  const historyStore = new TurnHistoryStore(path.join(paths.dataDir, 'turn-history.json'), log.child('history'));
  const registry = new TurnRegistry(
    () => hub.poke(),
    HISTORY_LIMIT,
    (history) => void historyStore.save(history),
  );
  const historyService = {
    start: async () => registry.restoreHistory(await historyStore.load()),
    stop: () => historyStore.flush(),
  };
  hub.addSource(() => {
    const update = registry.drain();
    return update ? { event: 'turns:update', payload: update } : null;
  });
  const outbox = new ResultOutbox({
    dir: path.join(paths.dataDir, 'outbox'),
    clock,
    log: log.child('outbox'),
    ...(options.random ? { random: options.random } : {}),
    target: () => {
      const connector = runner.currentConnector;
      const credentials = runner.currentCredentials;
      return connector && credentials ? { connector, credentials } : null;
    },
    onRevoked: () => void runner.markRevoked(),
    onChange: (pending) => runner.setUndelivered(pending),
    onDelivery: (event) => work.onDelivery(event),
    beforeReport: (key) => work.beforeReport(key),
  });
  const work = new WorkManager({
    clock,
    log: log.child('work'),
    ...(options.random ? { random: options.random } : {}),
    host: {
      credentials: () => runner.currentCredentials,
      connector: () => runner.currentConnector,
      tenantId: () => runner.identity?.tenantId ?? null,
      controlPlaneUrl: () => runner.identity?.controlPlaneUrl ?? null,
      longPollMaxMs: () => runner.longPoll,
      paused: () => runner.isPaused,
      config: () => config(),
      onHeartbeat: (listener) => runner.onHeartbeat(listener),
      setActive: (active) => runner.setActive(active),
      markRevoked: () => runner.markRevoked(),
      notReady: () => runner.notReady(),
      readinessChanged: (notice) => runner.readinessChanged(notice),
    },
    registry,
    outbox,
    journal: new RunningJournal(path.join(paths.dataDir, 'running')),
    resume: new ResumeCache(state, () => clock.now()),
    executor: usage.executor,
    admission: usage.admission,
    capabilities,
    breaker,
    knownSecrets: secretList,
    registerTurnSecret: (secret) => logging.addTurnSecret(secret),
    ...(options.runtimeEnv ? { runtimeEnv: options.runtimeEnv } : {}),
    ...(options.workStrategy ? { strategy: options.workStrategy } : {}),
    ...(options.workAutoClaim === false ? { autoClaim: false } : {}),
  });
  const unsubscribeWake = runner.onWake(() => work.wake());
  const operator = new OperatorService({
    clock,
    log: log.child('operator'),
    ...(options.random ? { random: options.random } : {}),
    controlPlaneUrl: () => settings.get().controlPlaneUrl,
    secrets: secrets.ok ? secrets.store : null,
    secretProblem: secrets.ok ? null : secrets.reason,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    registerSecret,
    knownSecrets: secretList,
    emit: (event) => hub.emit(event),
    turns: () => registry.snapshot(),
  });

  let shutdownCore: (limitMs?: number) => Promise<void> = async () => {};
  const quit = new QuitPolicy({
    clock,
    log: log.child('quit'),
    work,
    setStopping: (stopping) => runner.setStopping(stopping),
    drainLimitMs: () => settings.get().quitDrainMs,
    shutdown: () => shutdownCore(0),
    undelivered: () => outbox.pending,
  });

  const startedAt = clock.now();
  const host = createHost({
    hub,
    log,
    logFeed: logging,
    status: () => runner.status(),
    // The history loads first (the work side adds restart reports to it) and is flushed last.
    services: [historyService, runner, work, operator],
    handlers: createHandlers({
      appInfo: {
        name: options.appName,
        version: options.appVersion,
        mode: options.mode,
        platform: platform.platform,
        arch: platform.arch,
        hostname: platform.hostname,
        runtimeVersions: platform.versions,
        dataDir: paths.dataDir,
        logDir: paths.logDir,
      },
      startedAt,
      clock,
      runner,
      history,
      logFeed: logging,
      registry,
      work,
      settings,
      overrideSources: options.overrideSources ?? {},
      desktop: options.desktop ?? null,
      operator,
      quit,
      usage: usage.service,
    }),
  });
  await host.start();
  log.info('host started', { mode: options.mode, version: options.appVersion });
  let shutting: Promise<void> | null = null;
  shutdownCore = (limitMs = 0) => {
    shutting ??= (async () => {
      // The status says "finishing N running turns" while they drain.
      if (work.activeCount > 0) runner.setDraining(true);
      const { canceled } = await work.drain(limitMs);
      if (canceled > 0) log.warn('canceled running turns to quit', { canceled });
      unsubscribeSettings();
      unsubscribeWake();
      unsubscribeUsage();
      await host.stop();
      await usage.stop();
      await localExecutor.stop();
      await logging.close();
    })();
    return shutting;
  };
  return {
    host,
    log,
    settings,
    runner,
    work,
    capabilities,
    quit: (mode) => quit.quit(mode),
    onQuit: (listener) => quit.onQuit(listener),
    quitDrainMs: () => settings.get().quitDrainMs,
    shutdown: (limitMs) => shutdownCore(limitMs),
  };
}
