import os from 'node:os';
import path from 'node:path';
import { WideningGate } from './settings/widening';
import { createHandlers, settingsView } from './commands';
import { RostRunnerConnector } from './planes/rost/rost-runner-connector';
import { EventHub } from './event-hub';
import { createHost } from './host';
import { createLogger } from './logging/logger';
import { OperatorService } from './operator';
import { hostPaths } from './paths';
import { systemClock, type PlatformInfo } from './base/ports';
import { CapabilityDetector } from './runner/capabilities';
import { CapabilitiesCache } from './runner/capabilities-cache';
import { RuntimeBreaker } from './runner/runtime-breaker';
import { createCommandRunner } from './exec/process-runner';
import { CapacityHistory, nodeSystemProbe } from './runner/telemetry';
import { openSecretStore } from './secrets/open-secret-store';
import { createConfSettingsBackend } from './settings/conf-settings-backend';
import { createSettingsStore, type SettingsBackend } from './settings/settings-store';
import { LocalRuntimeExecutor } from './exec/executor';
import { configureScriptNode } from './exec/script-node';
import { CredentialBroker, IsolationProbe, commandWorks, parseAllowList } from './exec/isolation';
import { TurnTranscripts } from './work/turn-transcripts';
import { TurnRegistry } from './work/turn-registry';
import { TurnHistoryStore } from './work/turn-history-store';
import { HISTORY_LIMIT } from '../../shared/turns';
import { QuitPolicy } from './quit-policy';
import { AppServerSupport } from './exec/codex-app-server/support';
import { createUsage } from './usage/usage-wiring';
import { CapacitySampler } from './runner/capacity-sampler';
import { MachineSlots } from './sessions/machine-slots';
import { migrateToProfiles } from './sessions/migration';
import { ProfileOverrides } from './sessions/profile-settings';
import { ProfileStore } from './sessions/profile-store';
import { addWantedProfiles, keepForPlane, wireProfiles } from './planes/profile-wiring';
import { SechroomHost, workViewAccess } from './planes/sechroom/sechroom-factory';
import { sechroomUsage } from './planes/sechroom/usage-account';
import { DEFAULT_PROFILE_ID, ProfileIdSchema } from '../../shared/profiles';
import type { Core, CoreOptions } from './core-api';

export type { Core, CoreOptions } from './core-api';
import { egressHostEntries, type Settings } from '../../shared/settings';

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

/** The machine-wide cap on turns at once: the setting, or one per core (0). */
function machineCap(settings: Settings, cpuCount: number): number {
  return settings.machineMaxTurns > 0 ? settings.machineMaxTurns : Math.max(1, cpuCount);
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
  const cpuCount = os.cpus().length;
  const mainProfile = ProfileIdSchema.parse(options.profile ?? DEFAULT_PROFILE_ID);
  const overrideSources = options.overrideSources ?? {};

  // Env and flag overrides: the per-profile ones are the main profile's, the rest the host's.
  const overrides = new ProfileOverrides(mainProfile, options.overrides ?? {}, overrideSources, options.profiles ?? []);
  const hostBackend = options.settingsBackend ?? createConfSettingsBackend({ dir: paths.dataDir });
  const hostSettings = createSettingsStore({
    backend: hostBackend,
    hostname: platform.hostname,
    overrides: overrides.host,
    onWarning: (message) => log.warn(message),
  });

  const secrets =
    options.secretStore ??
    (await openSecretStore({
      service: 'Runner Tray',
      dataDir: paths.dataDir,
      preferred: hostSettings.get().secretBackend,
      allowFileStore: options.allowFileSecretStore ?? hostSettings.get().secretBackend === 'file',
    }));
  if (!secrets.ok) log.warn('no secret store: pairing is refused until one works', { reason: secrets.reason });

  const profileStore = new ProfileStore(paths.dataDir);
  await migrateToProfiles({ dataDir: paths.dataDir, store: profileStore, legacySettings: readQuietly(hostBackend), hostname: platform.hostname, log });

  const history = new CapacityHistory(options.systemProbe ?? nodeSystemProbe);
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
  // The packaged app cannot run as Node (its fuse): the scripts around a turn take the machine's node, if any.
  if (options.electronRunAsNode === false) configureScriptNode({ runAsNode: false, systemNode: await commandRunner.which('node') });
  // Model API keys stay on the host: a sandboxed turn gets a token worthless outside it.
  const credentialBroker = new CredentialBroker({ log: log.child('broker') });
  const localExecutor = new LocalRuntimeExecutor({
    workRoot: path.join(paths.dataDir, 'turns'),
    log: log.child('exec'),
    clock,
    clientVersion: options.appVersion,
    ...(options.parentDeathWatch !== undefined ? { parentDeathWatch: options.parentDeathWatch } : {}),
    codexDriver: async (binary) => {
      const choice = hostSettings.get().codexDriver;
      if (choice !== 'auto') return choice;
      return (await appServerSupport.check(binary)) ? 'app-server' : 'exec';
    },
    isolation: {
      tools: () => isolation.get(),
      extraEnvAllow: () => parseAllowList(hostSettings.get().runtimeEnvAllow),
      ownConfig: () => hostSettings.get().useOwnAgentConfig,
      // A sandboxed turn's own network: out through the egress proxy to its allowlist only.
      egress: () => ({ network: hostSettings.get().turnNetwork, hosts: egressHostEntries(hostSettings.get().turnEgressHosts) }),
      // Turns live in dataDir/turns: the sandbox shows only each turn's own folder of it.
      hidden: [paths.dataDir],
      broker: credentialBroker,
    },
  });
  const mainSettings = () => profiles.settingsOf(mainProfile).get();
  const usage = createUsage({
    dataDir: paths.dataDir,
    clock,
    log,
    settings: mainSettings,
    stateOverridden: () => overrideSources.modelAccountState !== undefined,
    capabilities,
    executor: options.executor ?? localExecutor,
    probeCodex: async () => {
      const codex = (await capabilities.get()).codex;
      if (!codex.installed || !codex.path) return null;
      return localExecutor.readCodexRateLimits(codex.path, options.runtimeEnv ?? {}, secretList());
    },
    emit: (event) => hub.emit(event),
  });

  // Finished turns outlive the process: the Turns view shows them (every profile's) after a restart.
  const historyStore = new TurnHistoryStore(
    path.join(paths.dataDir, 'turn-history.jsonl'),
    log.child('history'),
    HISTORY_LIMIT,
    path.join(paths.dataDir, 'turn-history.json'),
  );
  // Live transcripts beside the history log: memory keeps the newest part of each running turn's.
  const transcripts = new TurnTranscripts(
    path.join(paths.dataDir, 'transcripts'),
    () => hostSettings.get().transcriptMemoryKb * 1024,
    () => hub.poke(),
    log.child('transcripts'),
    () => clock.now(),
  );
  const registry = new TurnRegistry(() => hub.poke(), historyStore, transcripts);
  const historyService = {
    // Loads alongside the sessions' start: what they add to the history meanwhile waits for it.
    start: () => {
      void historyStore.load().then(() => transcripts.sweep(historyStore.allRows().map((row) => row.id)));
      return Promise.resolve();
    },
    stop: () => historyStore.flush(),
  };
  hub.addSource(() => {
    const update = registry.drain();
    return update ? { event: 'turns:update', payload: update } : null;
  });
  hub.addSource(() => {
    const lines = transcripts.drain();
    return lines ? { event: 'turns:transcript', payload: lines } : null;
  });

  // The machine-wide cap on turns at once: every profile's loop takes its slots here, Rost and Sechroom alike.
  const machine = new MachineSlots(() => machineCap(hostSettings.get(), cpuCount));
  // Sechroom profiles with git delivery: one delivery for the host, swept at start.
  const sechroom = new SechroomHost({
    machine,
    dataDir: paths.dataDir,
    clock,
    log,
    ...(options.random ? { random: options.random } : {}),
    registry,
    emit: (event) => hub.emit(event),
    onChange: () => profiles.changed(),
    secrets,
    registerSecret,
    knownSecrets: secretList,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    env: options.env ?? process.env,
    runtimeEnv: options.runtimeEnv ?? {},
    executor: localExecutor,
    codex: async () => (await capabilities.get()).codex,
    usageFor: (reservePercent, alias) => sechroomUsage(usage.service, reservePercent, alias),
    appVersion: options.appVersion,
    autoClaim: options.workAutoClaim !== false,
    initial: options.sechroomProfiles ?? {},
    profiles: () => profileStore.all(),
  });
  await sechroom.sweep();
  const operator = new OperatorService({
    clock,
    log: log.child('operator'),
    ...(options.random ? { random: options.random } : {}),
    controlPlaneUrl: () => mainSettings().controlPlaneUrl,
    secrets: secrets.ok ? secrets.store : null,
    secretProblem: secrets.ok ? null : secrets.reason,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    registerSecret,
    knownSecrets: secretList,
    emit: (event) => hub.emit(event),
    turns: () => registry.overview(),
    workLayer: (profile) => workViewAccess(options.env ?? process.env, profiles.sessions(), profile),
  });

  const { profiles, runtimesChanged } = wireProfiles({
    store: profileStore,
    log,
    emit: (event) => hub.emit(event),
    sechroom: sechroom.factory,
    rost: {
      mainProfile,
      usage,
      operator: { controlPlaneUrl: () => mainSettings().controlPlaneUrl, runnerPairingStart: (input) => operator.runnerPairingStart(input) },
      clock,
      ...(options.random ? { random: options.random } : {}),
      secrets: secrets.ok ? secrets.store : null,
      secretStorage: secrets.ok
        ? { backend: secrets.backend, warning: secrets.warning ?? null, problem: null }
        : { backend: 'none', warning: null, problem: secrets.reason },
      connectorFor: (baseUrl) => new RostRunnerConnector({ baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}), knownSecrets: secretList }),
      capabilities,
      breaker,
      history,
      machine,
      registry,
      platform,
      appVersion: options.appVersion,
      cpuCount,
      emit: (event) => hub.emit(event),
      registerSecret,
      knownSecrets: secretList,
      registerTurnSecret: (secret) => logging.addTurnSecret(secret),
      ...(options.runtimeEnv ? { runtimeEnv: options.runtimeEnv } : {}),
      strategy: options.workStrategy ?? 'adaptive',
      autoClaim: options.workAutoClaim !== false,
    },
    open: {
      dataDir: paths.dataDir,
      hostname: platform.hostname,
      hostSettings,
      log,
      emit: (event) => hub.emit(event),
      settingsView: (id, settings) => settingsView(id, settings, overrides.sourcesFor(id)),
      overridesFor: (id) => overrides.for(id),
      onSettings: () => {
        usage.service.refresh();
        machine.recheck();
      },
    },
    sweepStale: () => (options.executor ?? localExecutor).sweepStale(),
  });
  await profiles.openAll(keepForPlane(options.profileConnector));
  await addWantedProfiles(profiles, profileStore, [
    ...(options.profiles ?? []),
    ...Object.keys(options.sechroomProfiles ?? {}).map((id) => ({ id, name: id, connector: 'sechroom' as const, strict: true })),
    { id: mainProfile, name: mainProfile, connector: options.profileConnector ?? 'rost', strict: options.profileConnector !== undefined },
  ]);
  await usage.start();
  const unsubscribeUsage = usage.service.onChange(() => profiles.sessions().forEach((s) => s.refreshStatus()));

  const sampler = new CapacitySampler({
    clock,
    history,
    // What the machine can run now: its cap, or less when the profiles' own caps add up to less.
    sessions: () => ({
      active: profiles.activeCount,
      max:
        Math.min(
          machineCap(hostSettings.get(), cpuCount),
          profiles.sessions().reduce((n, s) => n + s.snapshot().sessions.max, 0),
        ) || 1,
    }),
    emit: (event) => hub.emit(event),
    idlePeriodMs: () => Math.min(...profiles.sessions().map((s) => s.snapshot().heartbeat.intervalMs)),
  });
  const sessionsService = {
    start: async () => {
      await profiles.start();
      void capabilities.refresh().then(() => profiles.sessions().forEach((s) => s.runtimesChanged(null, false)));
    },
    stop: () => profiles.stop(),
  };

  let shutdownCore: (limitMs?: number) => Promise<void> = async () => {};
  const quit = new QuitPolicy({
    clock,
    log: log.child('quit'),
    work: profiles.work,
    setStopping: (stopping) => profiles.sessions().forEach((s) => s.setStopping(stopping)),
    drainLimitMs: () => hostSettings.get().quitDrainMs,
    shutdown: () => shutdownCore(0),
    undelivered: () => profiles.undelivered,
  });

  const startedAt = clock.now();
  const host = createHost({
    hub,
    log,
    logFeed: logging,
    status: () => profiles.status(),
    watch: () => sampler.watch(),
    // The history starts loading first (what the sessions add meanwhile waits for it) and is flushed last.
    services: [historyService, sampler, sessionsService, operator],
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
      profiles,
      history,
      logFeed: logging,
      registry,
      overrideSources: (id) => overrides.sourcesFor(id),
      widening: new WideningGate(clock, log.child('settings')),
      desktop: options.desktop ?? null,
      operator,
      quit,
      usage: usage.service,
      refreshRuntimes: async () => {
        // "Check again": the operator says the problem is fixed.
        breaker.reset();
        await capabilities.refresh();
        runtimesChanged(null);
      },
    }),
  });
  await host.start();
  log.info('host started', { mode: options.mode, version: options.appVersion, profiles: profileStore.all().length });
  let shutting: Promise<void> | null = null;
  shutdownCore = (limitMs = 0) => {
    shutting ??= (async () => {
      // Quit drains every profile: each says "finishing N running turns" while its turns end.
      const drained = await Promise.all(profiles.sessions().map((s) => s.drain(limitMs)));
      const canceled = drained.reduce((n, d) => n + d.canceled, 0);
      if (canceled > 0) log.warn('canceled running turns to quit', { canceled });
      unsubscribeUsage();
      await host.stop();
      await usage.stop();
      await localExecutor.stop();
      await credentialBroker.close();
      await logging.close();
    })();
    return shutting;
  };
  const main = profiles.get(mainProfile);
  return {
    host,
    log,
    logFeed: logging,
    settings: profiles.settingsOf(mainProfile),
    runner: main,
    work: {
      runOne: () => main.runOne(),
      get activeCount() {
        return main.activeCount;
      },
    },
    profiles,
    capabilities,
    quit: (mode) => quit.quit(mode),
    onQuit: (listener) => quit.onQuit(listener),
    quitDrainMs: () => hostSettings.get().quitDrainMs,
    shutdown: (limitMs) => shutdownCore(limitMs),
  };
}

/** The stored settings document, or null when it cannot be read (the settings store reports that). */
function readQuietly(backend: SettingsBackend): unknown {
  try {
    return backend.read();
  } catch {
    return null;
  }
}
