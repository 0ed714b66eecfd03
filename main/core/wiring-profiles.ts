// The composition root's middle steps (bootstrap.ts calls them in this order): the profiles'
// registry, the usage meters, the Sechroom host, the operator's views, then the planes'
// factories installed and every profile opened. The registry comes first: the subsystems
// after it ask it for the profiles' settings and sessions once the host runs.
import path from 'node:path';
import type { Settings } from '../../shared/settings';
import type { OpenSecretStoreResult } from './secrets/open-secret-store';
import { OperatorService } from './operator';
import { addWantedProfiles, createProfiles, keepForPlane, planeFactories, runtimesChangedFor, type PlaneTable } from './planes/profile-wiring';
import { RostRunnerConnector } from './planes/rost/rost-runner-connector';
import type { SharedSessionDeps } from './planes/rost/rost-factory';
import { SechroomHost, workViewAccess } from './planes/sechroom/sechroom-factory';
import { sechroomUsage } from './planes/sechroom/usage-account';
import { MachineSlots } from './sessions/machine-slots';
import { migrateToProfiles } from './sessions/migration';
import { ProfileStore } from './sessions/profile-store';
import type { SessionRegistry } from './sessions/session-registry';
import type { SettingsBackend } from './settings/settings-store';
import { createUsage, type UsageWiring } from './usage/usage-wiring';
import type { LendingGate } from './lending/lending-gate';
import { stopTurnsOnHold } from './lending/lending-stops';
import { createLendingGate } from './lending/lending-wiring';
import { settingsView } from './commands';
import type { Foundation, Runtimes, Turns } from './wiring';

/** The machine-wide cap on turns at once: the setting, or one per core (0). */
export function machineCap(settings: Settings, cpuCount: number): number {
  return settings.machineMaxTurns > 0 ? settings.machineMaxTurns : Math.max(1, cpuCount);
}

export interface Profiles {
  store: ProfileStore;
  profiles: SessionRegistry;
  /** The planes' factory table, installed once the parts every plane needs are made. */
  planes: PlaneTable;
  /** The machine-wide cap on turns at once: every profile's loop takes its slots here, Rost and Sechroom alike. */
  machine: MachineSlots;
  /** The lending terms: whether this machine takes new work now (both planes), and its cap while in use. */
  lending: LendingGate;
  mainSettings(): Settings;
  /** A profile's settings changed (the usage meters read them again). */
  onSettingsChange(listener: () => void): void;
}

export async function wireProfileRegistry(f: Foundation, runtimes: Runtimes): Promise<Profiles> {
  const { options, paths, log, hub, hostSettings, overrides, platform } = f;
  const store = new ProfileStore(paths.dataDir);
  await migrateToProfiles({ dataDir: paths.dataDir, store, legacySettings: readQuietly(f.hostBackend), hostname: platform.hostname, log });
  const lending = createLendingGate({
    clock: f.clock,
    log: log.child('lending'),
    terms: () => hostSettings.get(),
    dataDir: paths.dataDir,
    commandRunner: runtimes.commandRunner,
    env: options.env ?? process.env,
    sources: options.lendingSources,
  });
  // Read once before any profile opens: the first claim already meets the terms.
  await lending.start();
  f.teardown.add('lending', () => lending.stop());
  const machine = new MachineSlots(() => lending.turnCap(machineCap(hostSettings.get(), f.cpuCount)));
  const settingsListeners: (() => void)[] = [];
  const { profiles, planes } = createProfiles({
    store,
    log,
    emit: (event) => hub.emit(event),
    sweepStale: () => (options.executor ?? runtimes.localExecutor).sweepStale(),
    open: {
      dataDir: paths.dataDir,
      hostname: platform.hostname,
      hostSettings,
      log,
      emit: (event) => hub.emit(event),
      settingsView: (id, settings) => settingsView(id, settings, overrides.sourcesFor(id)),
      overridesFor: (id) => overrides.for(id),
      onSettings: () => {
        for (const listener of settingsListeners) listener();
        machine.recheck();
        void lending.check();
      },
    },
  });
  return {
    store,
    profiles,
    planes,
    machine,
    lending,
    mainSettings: () => profiles.settingsOf(f.mainProfile).get(),
    onSettingsChange: (listener) => settingsListeners.push(listener),
  };
}

export function wireUsage(f: Foundation, runtimes: Runtimes, p: Profiles): UsageWiring {
  const { options } = f;
  const { capabilities, localExecutor } = runtimes;
  const usage = createUsage({
    dataDir: f.paths.dataDir,
    clock: f.clock,
    log: f.log,
    settings: p.mainSettings,
    stateOverridden: () => options.overrideSources?.modelAccountState !== undefined,
    capabilities,
    executor: options.executor ?? localExecutor,
    probeCodex: async () => {
      const codex = (await capabilities.get()).codex;
      if (!codex.installed || !codex.path) return null;
      return localExecutor.readCodexRateLimits(codex.path, options.runtimeEnv ?? {}, f.knownSecrets());
    },
    emit: (event) => f.hub.emit(event),
  });
  f.teardown.add('usage', () => usage.stop());
  p.onSettingsChange(() => usage.service.refresh());
  return usage;
}

/** Sechroom profiles with git delivery: one delivery for the host, swept at start. */
export async function wireSechroomHost(
  f: Foundation,
  runtimes: Runtimes,
  turns: Turns,
  p: Profiles,
  usage: UsageWiring,
  secrets: OpenSecretStoreResult,
): Promise<SechroomHost> {
  const { options } = f;
  const sechroom = new SechroomHost({
    machine: p.machine,
    lending: p.lending,
    dataDir: f.paths.dataDir,
    clock: f.clock,
    log: f.log,
    ...(options.random ? { random: options.random } : {}),
    registry: turns.registry,
    emit: (event) => f.hub.emit(event),
    onChange: () => p.profiles.changed(),
    secrets,
    registerSecret: f.registerSecret,
    knownSecrets: f.knownSecrets,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    env: options.env ?? process.env,
    runtimeEnv: options.runtimeEnv ?? {},
    executor: runtimes.localExecutor,
    codex: async () => (await runtimes.capabilities.get()).codex,
    usageFor: (reservePercent, alias) => sechroomUsage(usage.service, reservePercent, alias),
    appVersion: options.appVersion,
    autoClaim: options.workAutoClaim !== false,
    initial: options.sechroomProfiles ?? {},
    profiles: () => p.store.all(),
  });
  await sechroom.sweep();
  return sechroom;
}

export function wireOperator(f: Foundation, turns: Turns, p: Profiles, secrets: OpenSecretStoreResult): OperatorService {
  const { options } = f;
  return new OperatorService({
    clock: f.clock,
    log: f.log.child('operator'),
    ...(options.random ? { random: options.random } : {}),
    controlPlaneUrl: () => p.mainSettings().controlPlaneUrl,
    secrets: secrets.ok ? secrets.store : null,
    secretProblem: secrets.ok ? null : secrets.reason,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    registerSecret: f.registerSecret,
    knownSecrets: f.knownSecrets,
    emit: (event) => f.hub.emit(event),
    turns: () => turns.registry.overview(),
    workLayer: (profile) => workViewAccess(options.env ?? process.env, p.profiles.sessions(), profile),
  });
}

export interface PlaneParts {
  runtimes: Runtimes;
  turns: Turns;
  usage: UsageWiring;
  operator: OperatorService;
  secrets: OpenSecretStoreResult;
  sechroom: SechroomHost;
}

/** What every Rost session shares (the registry adds the hooks that act on every profile). */
function rostShared(f: Foundation, p: Profiles, parts: PlaneParts): Omit<SharedSessionDeps, 'onChange' | 'onRuntimes'> {
  const { options } = f;
  const { secrets, runtimes } = parts;
  return {
    mainProfile: f.mainProfile,
    usage: parts.usage,
    operator: { controlPlaneUrl: () => p.mainSettings().controlPlaneUrl, runnerPairingStart: (input) => parts.operator.runnerPairingStart(input) },
    clock: f.clock,
    ...(options.random ? { random: options.random } : {}),
    secrets: secrets.ok ? secrets.store : null,
    secretStorage: secrets.ok
      ? { backend: secrets.backend, warning: secrets.warning ?? null, problem: null }
      : { backend: 'none', warning: null, problem: secrets.reason },
    connectorFor: (baseUrl) => new RostRunnerConnector({ baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}), knownSecrets: f.knownSecrets }),
    capabilities: runtimes.capabilities,
    breaker: runtimes.breaker,
    history: runtimes.capacity,
    machine: p.machine,
    lending: p.lending,
    registry: parts.turns.registry,
    turnsDir: path.join(f.paths.dataDir, 'turns'),
    platform: f.platform,
    appVersion: options.appVersion,
    cpuCount: f.cpuCount,
    emit: (event) => f.hub.emit(event),
    registerSecret: f.registerSecret,
    knownSecrets: f.knownSecrets,
    registerTurnSecret: (secret) => f.logging.addTurnSecret(secret),
    ...(options.runtimeEnv ? { runtimeEnv: options.runtimeEnv } : {}),
    strategy: options.workStrategy ?? 'adaptive',
    autoClaim: options.workAutoClaim !== false,
  };
}

/** Installs the planes' factories and opens every profile the store and the command line name. */
export async function openProfiles(f: Foundation, p: Profiles, parts: PlaneParts): Promise<(notice: string | null) => void> {
  const { options, mainProfile } = f;
  p.planes.install(planeFactories(p.profiles, { rost: rostShared(f, p, parts), sechroom: parts.sechroom.factory }));
  await p.profiles.openAll(keepForPlane(options.profileConnector));
  await addWantedProfiles(p.profiles, p.store, [
    ...(options.profiles ?? []),
    ...Object.keys(options.sechroomProfiles ?? {}).map((id) => ({ id, name: id, connector: 'sechroom' as const, strict: true })),
    { id: mainProfile, name: mainProfile, connector: options.profileConnector ?? 'rost', strict: options.profileConnector !== undefined },
  ]);
  await parts.usage.start();
  const unsubscribe = parts.usage.service.onChange(() => p.profiles.sessions().forEach((s) => s.refreshStatus()));
  f.teardown.add('usage watch', unsubscribe);
  f.teardown.add('lending watch', watchLending(f, p));
  return runtimesChangedFor(p.profiles);
}

/** A change of the lending terms: the machine's cap and every profile look again; a hold may cancel the running turns. */
function watchLending(f: Foundation, p: Profiles): () => void {
  const offChange = p.lending.onChange(() => {
    p.machine.recheck();
    p.profiles.sessions().forEach((s) => s.refreshStatus());
    f.hub.emit({ event: 'lending:update', payload: p.lending.view(machineCap(f.hostSettings.get(), f.cpuCount)) });
  });
  const offStops = stopTurnsOnHold({
    gate: p.lending,
    stopsRunningTurns: () => f.hostSettings.get().lendStopsRunningTurns,
    cancelAll: (reason) => p.profiles.sessions().reduce((n, s) => n + s.cancelAll(reason), 0),
    log: f.log.child('lending'),
  });
  return () => {
    offChange();
    offStops();
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
