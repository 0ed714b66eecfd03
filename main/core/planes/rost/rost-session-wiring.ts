/**
 * Assembling a Rost session from its parts: the heartbeat tracker (its beat resumes delivery, wakes the
 * claim loop and tells the session's listeners), the identity keeper (connecting starts the heartbeat),
 * the unit launcher with its host callbacks, and the claim loop; the pause state and the events are the
 * session's own (sessions/session-base.ts). The parts refer to one another lazily through `parts`, filled
 * before any of them runs.
 */
import { ResumeCache } from './resume-cache';
import { HeartbeatTracker } from './heartbeat-tracker';
import { IdentityKeeper } from './identity-keeper';
import type { PauseState } from '../../runner/pause-state';
import { UnitLauncher } from './unit-launcher';
import { RuntimeGate } from './runtime-gate';
import { AnswerWatch, watchedConnector } from './answer-watch';
import type { SessionEvents } from '../../sessions/session-events';
import { claimLoop } from './rost-session-claims';
import { storageHealth } from './rost-storage';
import type { RostSessionDeps, SessionHooks, SessionParts } from './rost-session-deps';

/** Builds the session's parts around its own events (they hear each heartbeat) and pause state. */
export function wireSession(
  deps: RostSessionDeps,
  hooks: SessionHooks,
  { events, pauseState }: { events: SessionEvents; pauseState: PauseState },
): SessionParts {
  const parts: Partial<SessionParts> = { runtimes: new RuntimeGate(deps.capabilities, deps.breaker, deps.settings, deps.log), pauseState };
  const get = () => parts as SessionParts;
  parts.storage = storageHealth(deps, hooks);
  parts.heartbeat = heartbeatTracker(deps, hooks, events, get);
  parts.answers = new AnswerWatch({ clock: deps.clock, onChange: () => hooks.changed() });
  parts.identityKeeper = identityKeeper(deps, hooks, get);
  parts.launcher = unitLauncher(deps, hooks, get);
  parts.loop = claimLoop(deps, hooks, get);
  return get();
}

function heartbeatTracker(deps: RostSessionDeps, hooks: SessionHooks, events: SessionEvents, get: () => SessionParts): HeartbeatTracker {
  return new HeartbeatTracker({
    clock: deps.clock,
    log: deps.log.child('heartbeat'),
    ...(deps.random ? { random: deps.random } : {}),
    heartbeatMs: () => deps.settings().heartbeatMs,
    credentials: () => get().identityKeeper.current?.credentials ?? null,
    body: () => hooks.heartbeatBody(),
    onRevoked: () => void get().identityKeeper.markRevoked(),
    onChange: () => hooks.changed(),
    onBeat: () => {
      get().launcher.resumeDelivery();
      get().loop.heartbeat();
      events.beat();
    },
  });
}

function identityKeeper(deps: RostSessionDeps, hooks: SessionHooks, get: () => SessionParts): IdentityKeeper {
  return new IdentityKeeper({
    clock: deps.clock,
    log: deps.log,
    ...(deps.random ? { random: deps.random } : {}),
    config: () => {
      const s = deps.settings();
      return { controlPlaneUrl: s.controlPlaneUrl, runnerName: s.runnerName, expectedTenantId: s.expectedTenantId ?? null };
    },
    secrets: deps.secrets,
    secretStorage: deps.secretStorage,
    account: deps.account,
    state: deps.state,
    connectorFor: (url) => watchedConnector(deps.connectorFor(url), get().answers),
    platform: deps.platform,
    appVersion: deps.appVersion,
    registerSecret: deps.registerSecret,
    ...(deps.operatorPairingStart ? { operatorPairingStart: deps.operatorPairingStart } : {}),
    onConnected: (connector) => {
      get().heartbeat.start(connector);
      get().loop.nudge();
    },
    onForgotten: () => get().heartbeat.stop(),
    onChange: () => hooks.changed(),
  });
}

function unitLauncher(deps: RostSessionDeps, hooks: SessionHooks, get: () => SessionParts): UnitLauncher {
  return new UnitLauncher({
    dir: deps.dir,
    clock: deps.clock,
    log: deps.log.child('work'),
    ...(deps.random ? { random: deps.random } : {}),
    onUndelivered: (pending) => hooks.undelivered(pending),
    host: {
      profile: deps.profile.id,
      current: () => get().identityKeeper.current,
      tenantId: () => hooks.identity()?.tenantId ?? null,
      controlPlaneUrl: () => hooks.identity()?.controlPlaneUrl ?? null,
      runtime: () => deps.settings().runtime,
      markRevoked: () => void get().identityKeeper.markRevoked(),
      readinessChanged: (notice) => deps.onRuntimes(notice),
      activeChanged: (active) => hooks.active(active),
      writeFailed: () => get().storage.suspect(),
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
}
