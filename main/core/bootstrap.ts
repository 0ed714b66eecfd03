import { WideningGate } from './settings/widening';
import type { Clock } from './base/ports';
import type { EventHub } from './event-hub';
import { createHandlers } from './commands';
import { createHost, type Host } from './host';
import type { OperatorService } from './operator';
import { QuitPolicy } from './quit-policy';
import { CapacitySampler } from './runner/capacity-sampler';
import type { Core, CoreOptions } from './core-api';
import { endSparesWhenAllPaused, wireFoundation, wireRuntimes, wireSecrets, wireTurns, type Foundation, type Runtimes, type Turns } from './wiring';
import { machineCap, openProfiles, wireOperator, wireProfileRegistry, wireSechroomHost, wireUsage, type PlaneParts, type Profiles } from './wiring-profiles';
import type { UsageWiring } from './usage/usage-wiring';
import type { UpdateNotice } from '../../shared/updates';
import { wireDiagnostics } from './wiring-diagnostics';

export type { Core, CoreOptions } from './core-api';

/**
 * The composition root: builds the core the same way for both entries, one subsystem at a
 * time, each from what the ones before it made. Each adds how it stops to the teardown, so the
 * core stops in the reverse order.
 */
export async function bootstrapCore(options: CoreOptions): Promise<Core> {
  const f = await wireFoundation(options);
  const secrets = await wireSecrets(f);
  const runtimes = await wireRuntimes(f);
  const turns = wireTurns(f);
  const p = await wireProfileRegistry(f, runtimes);
  const usage = wireUsage(f, runtimes, p);
  const sechroom = await wireSechroomHost(f, runtimes, turns, p, usage, secrets);
  const operator = wireOperator(f, turns, p, secrets);
  const parts: PlaneParts = { runtimes, turns, usage, operator, secrets, sechroom };
  const runtimesChanged = await openProfiles(f, p, parts);
  const sampler = wireSampler(f, runtimes, p);
  let drainLimitMs = 0;
  const shutdown = (limitMs = 0): Promise<void> => {
    drainLimitMs = limitMs;
    return f.teardown.run();
  };
  const quit = wireQuit(f, p, () => shutdown(0));
  const diagnostics = wireDiagnostics(f, runtimes, p, secrets);
  let update: UpdateNotice | null = null;
  const host = wireHost(f, { runtimes, turns, p, usage, operator, sampler, quit, runtimesChanged, diagnostics, update: () => update });
  await host.start();
  f.log.info('host started', { mode: options.mode, version: options.appVersion, profiles: p.store.all().length });
  f.teardown.add('host', () => host.stop());
  f.teardown.add('spares when paused', endSparesWhenAllPaused(f.hub, runtimes.localExecutor));
  // Stops first: quit drains every profile, each saying "finishing N running turns" while its turns end.
  f.teardown.add('profiles', () => drainProfiles(f, p, drainLimitMs));
  const announceUpdate = (notice: UpdateNotice) => {
    update = notice;
    f.hub.emit({ event: 'app:update', payload: notice });
  };
  return coreApi(f, p, { host, quit, runtimes, shutdown, diagnostics, announceUpdate });
}

async function drainProfiles(f: Foundation, p: Profiles, limitMs: number): Promise<void> {
  const drained = await Promise.all(p.profiles.sessions().map((s) => s.drain(limitMs)));
  const canceled = drained.reduce((n, d) => n + d.canceled, 0);
  if (canceled > 0) f.log.warn('canceled running turns to quit', { canceled });
}

function wireSampler(f: Foundation, runtimes: Runtimes, p: Profiles): CapacitySampler {
  const { profiles } = p;
  return new CapacitySampler({
    clock: f.clock,
    history: runtimes.capacity,
    // What the machine can run now: its cap, or less when the profiles' own caps add up to less.
    sessions: () => ({
      active: profiles.activeCount,
      max:
        Math.min(
          machineCap(f.hostSettings.get(), f.cpuCount),
          profiles.sessions().reduce((n, s) => n + s.snapshot().sessions.max, 0),
        ) || 1,
    }),
    emit: (event) => f.hub.emit(event),
    idlePeriodMs: () => Math.min(...profiles.sessions().map((s) => s.snapshot().heartbeat.intervalMs)),
  });
}

function wireQuit(f: Foundation, p: Profiles, shutdown: () => Promise<void>): QuitPolicy {
  return new QuitPolicy({
    clock: f.clock,
    log: f.log.child('quit'),
    work: p.profiles.work,
    setStopping: (stopping) => p.profiles.sessions().forEach((s) => s.setStopping(stopping)),
    drainLimitMs: () => f.hostSettings.get().quitDrainMs,
    shutdown,
    undelivered: () => p.profiles.undelivered,
  });
}

/** The longest this run's runtime detection waits for a first heartbeat (none comes unpaired or on the Sechroom plane alone). */
const FIRST_BEAT_WAIT_MS = 3_000;

/** Resolves once a profile's first heartbeat was answered or failed, or after `ms`. */
export function firstBeatSettled(hub: EventHub, clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let off = () => undefined as void;
    const timer = clock.setTimeout(() => done(), ms);
    const done = () => {
      off();
      clock.clearTimeout(timer);
      resolve();
    };
    off = hub.subscribe((batch) => {
      if (batch.some((e) => e.event === 'runner:snapshot' && (e.payload.heartbeat.lastOkAt !== null || e.payload.heartbeat.consecutiveFailures > 0))) done();
    });
  });
}

interface HostParts {
  runtimes: Runtimes;
  turns: Turns;
  p: Profiles;
  usage: UsageWiring;
  operator: OperatorService;
  sampler: CapacitySampler;
  quit: QuitPolicy;
  runtimesChanged(notice: string | null): void;
  diagnostics: Core['diagnostics'];
  update(): UpdateNotice | null;
}

function wireHost(f: Foundation, parts: HostParts): Host {
  const { options, platform, paths } = f;
  const { runtimes, p } = parts;
  const { profiles } = p;
  const sessionsService = {
    start: async () => {
      // This run's own detection (process spawns) waits for the first heartbeat where the last run's answers it.
      const detected = runtimes.capabilities.detectAtStart(firstBeatSettled(f.hub, f.clock, FIRST_BEAT_WAIT_MS));
      await profiles.start();
      void detected.then(() => profiles.sessions().forEach((s) => s.runtimesChanged(null, false)));
    },
    stop: async () => {
      await profiles.stop();
      // A detection still under way writes nothing into the data folder after the stop.
      await runtimes.capabilities.stop();
    },
  };
  const appInfo = {
    name: options.appName,
    version: options.appVersion,
    mode: options.mode,
    platform: platform.platform,
    arch: platform.arch,
    hostname: platform.hostname,
    runtimeVersions: platform.versions,
    dataDir: paths.dataDir,
    logDir: paths.logDir,
  };
  return createHost({
    hub: f.hub,
    log: f.log,
    logFeed: f.logging,
    status: () => profiles.status(),
    profileStatuses: () => profiles.sessions().map((s) => ({ ...s.status(), profile: s.profile.id })),
    watch: () => parts.sampler.watch(),
    // The history starts loading first (what the sessions add meanwhile waits for it) and is flushed last.
    services: [parts.turns.service, parts.sampler, sessionsService, parts.operator],
    handlers: createHandlers({
      appInfo,
      startedAt: f.clock.now(),
      clock: f.clock,
      profiles,
      history: runtimes.capacity,
      logFeed: f.logging,
      registry: parts.turns.registry,
      overrideSources: (id) => f.overrides.sourcesFor(id),
      widening: new WideningGate(f.clock, f.log.child('settings')),
      desktop: options.desktop ?? null,
      operator: parts.operator,
      quit: parts.quit,
      usage: parts.usage.service,
      lending: { view: () => p.lending.view(machineCap(f.hostSettings.get(), f.cpuCount)) },
      diagnostics: parts.diagnostics,
      update: parts.update,
      refreshRuntimes: async () => {
        // "Check again": the operator says the problem is fixed.
        runtimes.breaker.reset();
        await runtimes.capabilities.refresh();
        parts.runtimesChanged(null);
      },
    }),
  });
}

function coreApi(
  f: Foundation,
  p: Profiles,
  parts: {
    host: Host;
    quit: QuitPolicy;
    runtimes: Runtimes;
    shutdown(limitMs?: number): Promise<void>;
    diagnostics: Core['diagnostics'];
    announceUpdate: Core['announceUpdate'];
  },
): Core {
  const main = p.profiles.get(f.mainProfile);
  return {
    host: parts.host,
    log: f.log,
    logFeed: f.logging,
    settings: p.profiles.settingsOf(f.mainProfile),
    runner: main,
    work: { runOne: () => main.runOne(), lanes: async () => (main.lanes ? main.lanes() : null) },
    profiles: p.profiles,
    capabilities: parts.runtimes.capabilities,
    quit: (mode) => parts.quit.quit(mode),
    onQuit: (listener) => parts.quit.onQuit(listener),
    interrupt: () => parts.quit.interrupt(),
    quitDrainMs: () => f.hostSettings.get().quitDrainMs,
    shutdown: (limitMs) => parts.shutdown(limitMs),
    diagnostics: parts.diagnostics,
    announceUpdate: parts.announceUpdate,
  };
}
