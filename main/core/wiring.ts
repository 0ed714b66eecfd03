// The composition root's first steps (bootstrap.ts calls them in this order): the ground every
// subsystem stands on, the secret store, the runtimes a turn runs with, and the turns' records.
// Each step takes what the steps before it made and nothing else.
import os from 'node:os';
import path from 'node:path';
import { HISTORY_LIMIT } from '../../shared/turns';
import { DEFAULT_PROFILE_ID, ProfileIdSchema, type ProfileSummary } from '../../shared/profiles';
import { egressHostEntries } from '../../shared/settings';
import { systemClock, type Clock, type Logger, type PlatformInfo } from './base/ports';
import { Teardown } from './base/teardown';
import type { CoreOptions } from './core-api';
import { EventHub } from './event-hub';
import { LocalRuntimeExecutor } from './exec/executor';
import { CredentialBroker, IsolationProbe, commandWorks, parseAllowList } from './exec/isolation';
import { AppServerSupport } from './exec/codex-app-server/support';
import { createCommandRunner, type CommandRunner } from './exec/process-runner';
import { configureScriptNode } from './exec/script-node';
import { createLogger, type Logging } from './logging/logger';
import { hostPaths, type HostPaths } from './paths';
import { CapabilityDetector } from './runner/capabilities';
import { CapabilitiesCache } from './runner/capabilities-cache';
import { RuntimeBreaker } from './runner/runtime-breaker';
import { CapacityHistory, nodeSystemProbe } from './runner/telemetry';
import { openSecretStore, type OpenSecretStoreResult } from './secrets/open-secret-store';
import { createConfSettingsBackend } from './settings/conf-settings-backend';
import { ProfileOverrides } from './sessions/profile-settings';
import { createSettingsStore, type PersistentSettingsStore, type SettingsBackend } from './settings/settings-store';
import { TurnHistoryStore } from './work/turn-history-store';
import { TurnRegistry } from './work/turn-registry';
import { TurnTranscripts } from './work/turn-transcripts';

function currentPlatform(): PlatformInfo {
  return {
    platform: process.platform,
    arch: process.arch,
    release: os.release(),
    hostname: os.hostname(),
    versions: { node: process.versions.node, electron: process.versions.electron ?? null, chrome: process.versions.chrome ?? null },
  };
}

/** What every subsystem stands on. */
export interface Foundation {
  options: CoreOptions;
  clock: Clock;
  platform: PlatformInfo;
  paths: HostPaths;
  logging: Logging;
  log: Logger;
  hub: EventHub;
  teardown: Teardown;
  cpuCount: number;
  mainProfile: string;
  overrides: ProfileOverrides;
  hostBackend: SettingsBackend;
  hostSettings: PersistentSettingsStore;
  /** Every secret the host learns is redacted from the logs and from what turns print. */
  registerSecret(secret: string): void;
  knownSecrets(): string[];
}

export async function wireFoundation(options: CoreOptions): Promise<Foundation> {
  const paths = hostPaths(options.dataDir);
  const logging = await createLogger({ dir: options.logFiles === false ? null : paths.logDir, level: 'debug' });
  const log = logging.logger;
  const teardown = new Teardown((name, error) => log.warn('a part of the core did not stop cleanly', { part: name, error: String(error) }));
  teardown.add('logging', () => logging.close());
  const known = new Set<string>();
  const platform = options.platform ?? currentPlatform();
  const mainProfile = ProfileIdSchema.parse(options.profile ?? DEFAULT_PROFILE_ID);
  // Env and flag overrides: the per-profile ones are the main profile's, the rest the host's.
  const overrides = new ProfileOverrides(mainProfile, options.overrides ?? {}, options.overrideSources ?? {}, options.profiles ?? []);
  const hostBackend = options.settingsBackend ?? createConfSettingsBackend({ dir: paths.dataDir });
  const hostSettings = createSettingsStore({ backend: hostBackend, hostname: platform.hostname, overrides: overrides.host, onWarning: (m) => log.warn(m) });
  const clock = options.clock ?? systemClock;
  return {
    options,
    clock,
    platform,
    paths,
    logging,
    log,
    hub: new EventHub(clock),
    teardown,
    cpuCount: os.cpus().length,
    mainProfile,
    overrides,
    hostBackend,
    hostSettings,
    registerSecret: (secret) => {
      known.add(secret);
      logging.addSecret(secret);
    },
    knownSecrets: () => [...known],
  };
}

export async function wireSecrets({ options, paths, hostSettings, log }: Foundation): Promise<OpenSecretStoreResult> {
  const secrets =
    options.secretStore ??
    (await openSecretStore({
      service: 'Runner Tray',
      dataDir: paths.dataDir,
      preferred: hostSettings.get().secretBackend,
      allowFileStore: options.allowFileSecretStore ?? hostSettings.get().secretBackend === 'file',
    }));
  if (!secrets.ok) log.warn('no secret store: pairing is refused until one works', { reason: secrets.reason });
  return secrets;
}

/** What runs a turn on this machine, and what it knows of the machine's runtimes. */
export interface Runtimes {
  capacity: CapacityHistory;
  commandRunner: CommandRunner;
  capabilities: CapabilityDetector;
  breaker: RuntimeBreaker;
  localExecutor: LocalRuntimeExecutor;
}

export async function wireRuntimes(f: Foundation): Promise<Runtimes> {
  const { options, clock, log, paths, hostSettings } = f;
  // Readiness is checked with the env the runtimes run with (their HOME holds their login).
  const runtimeEnv = { ...process.env, ...options.runtimeEnv };
  const commandRunner = options.commandRunner ?? createCommandRunner(runtimeEnv);
  const isolation =
    options.isolationProbe ?? new IsolationProbe({ platform: process.platform, which: (name) => commandRunner.which(name), works: commandWorks });
  const cache = new CapabilitiesCache(path.join(paths.dataDir, 'capabilities.json'));
  const capabilities = new CapabilityDetector(commandRunner, clock, options.runtimeBinaries, runtimeEnv, () => isolation.refresh(), cache);
  const appServerSupport = new AppServerSupport(commandRunner);
  // The packaged app cannot run as Node (its fuse): the scripts around a turn take the machine's node, if any.
  if (options.electronRunAsNode === false) configureScriptNode({ runAsNode: false, systemNode: await commandRunner.which('node') });
  // Model API keys stay on the host: a sandboxed turn gets a token worthless outside it.
  const broker = new CredentialBroker({ log: log.child('broker') });
  f.teardown.add('credential broker', () => broker.close());
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
      broker,
    },
  });
  f.teardown.add('executor', () => localExecutor.stop());
  const capacity = new CapacityHistory(options.systemProbe ?? nodeSystemProbe);
  return { capacity, commandRunner, capabilities, breaker: new RuntimeBreaker(), localExecutor };
}

/**
 * Sandboxes started ahead of a claim wait only while something may claim: once every
 * profile is paused they are ended (the next turn's start makes them again), so a paused
 * machine keeps no bubblewrap or egress bridge waiting.
 */
export function endSparesWhenAllPaused(hub: Foundation['hub'], executor: Pick<LocalRuntimeExecutor, 'dropSpares'>): () => void {
  return hub.subscribe((batch) => {
    const list = batch.findLast((e) => e.event === 'profiles:changed')?.payload as ProfileSummary[] | undefined;
    if (list && list.length > 0 && list.every((p) => p.status.state === 'paused')) void executor.dropSpares();
  });
}

/** Every profile's turns: the live registry, the history log behind it and the live transcripts. */
export interface Turns {
  registry: TurnRegistry;
  service: { start(): Promise<void>; stop(): Promise<void> };
}

export function wireTurns({ paths, log, hub, hostSettings, clock }: Foundation): Turns {
  // Finished turns outlive the process: the Turns view shows them (every profile's) after a restart.
  const dir = paths.dataDir;
  const historyStore = new TurnHistoryStore(path.join(dir, 'turn-history.jsonl'), log.child('history'), HISTORY_LIMIT, path.join(dir, 'turn-history.json'));
  // Live transcripts beside the history log: memory keeps the newest part of each running turn's.
  const budget = () => hostSettings.get().transcriptMemoryKb * 1024;
  const transcripts = new TurnTranscripts(
    path.join(dir, 'transcripts'),
    budget,
    () => hub.poke(),
    log.child('transcripts'),
    () => clock.now(),
  );
  const registry = new TurnRegistry(() => hub.poke(), historyStore, transcripts);
  hub.addSource(() => {
    const update = registry.drain();
    return update ? { event: 'turns:update', payload: update } : null;
  });
  hub.addSource(() => {
    const lines = transcripts.drain();
    return lines ? { event: 'turns:transcript', payload: lines } : null;
  });
  const service = {
    // Loads alongside the sessions' start: what they add to the history meanwhile waits for it.
    start: () => {
      void historyStore.load().then(() => transcripts.sweep(historyStore.ids()));
      return Promise.resolve();
    },
    stop: () => historyStore.flush(),
  };
  return { registry, service };
}
