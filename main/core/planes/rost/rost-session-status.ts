/**
 * What a Rost session says of itself: its status (derived from pairing, connectivity, pause, drain and
 * runtime readiness, with the control plane's words redacted), the snapshot the window shows, and the
 * heartbeat body it sends the control plane. Pure reads of the session's parts and its own counters.
 */
import type { HeartbeatRequest } from '../../../../shared/protocol';
import type { RunnerSnapshot } from '../../../../shared/runner';
import { redactText } from '../../../../shared/redact';
import type { RunnerStatus } from '../../../../shared/status';
import type { Capabilities } from '../../runner/capabilities';
import type { RunnerIdentity } from '../../runner/runner-state-store';
import { buildHeartbeat } from './heartbeat-body';
import { deriveStatus } from './runner-status';
import { planeOffline } from './answer-watch';
import type { RostSessionDeps, SessionParts } from './rost-session-deps';

/** The session's own counters and flags, as the status reads them. */
export interface SessionState {
  active: number;
  undelivered: number;
  draining: boolean;
  stopping: { deadline: number; mode: 'after-turns' | 'now' } | null;
  paused: boolean;
  identity: RunnerIdentity | null;
}

export function sessionStatus(deps: RostSessionDeps, parts: SessionParts, state: SessionState): RunnerStatus {
  const s = deps.settings();
  const status = deriveStatus({
    paired: state.identity !== null && parts.identityKeeper.current !== null,
    pairing: parts.identityKeeper.pairingView,
    revoked: parts.identityKeeper.revoked,
    problem: parts.identityKeeper.problem,
    offline: planeOffline(parts.heartbeat, parts.answers),
    paused: parts.pauseState.current,
    draining: state.draining,
    stopping: state.stopping,
    active: state.active,
    max: s.maxSessions,
    connected: parts.heartbeat.connected,
    heartbeatOnly: !s.runWork,
    notReady: parts.runtimes.notReady(),
    claimsDeferred: deps.claimsDeferred?.() ?? null,
    lendingHeld: deps.lendingHeld?.() ?? null,
    storage: parts.storage.reason,
  });
  // Reasons quote the control plane (an error code, a message): redact them like everything else.
  return { ...status, reason: redactText(status.reason, deps.knownSecrets()) };
}

export function sessionSnapshot(deps: RostSessionDeps, parts: SessionParts, state: SessionState): RunnerSnapshot {
  const s = deps.settings();
  return {
    profile: deps.profile.id,
    status: sessionStatus(deps, parts, state),
    pairing: parts.identityKeeper.pairingView,
    identity: parts.identityKeeper.view(),
    secretStorage: deps.secretStorage,
    heartbeat: parts.heartbeat.view(),
    runtimes: parts.runtimes.view(),
    modelAccount: { alias: s.modelAccountAlias.trim() || 'default', state: deps.accountState() || 'unknown' },
    sessions: { active: state.active, max: s.maxSessions },
    results: { undelivered: state.undelivered },
    paused: parts.pauseState.view(),
  };
}

/** `read` is called once the capabilities are known: the body carries the state of that moment. */
export async function sessionHeartbeatBody(deps: RostSessionDeps, read: () => SessionState): Promise<HeartbeatRequest> {
  const s = deps.settings();
  const capabilities = await deps.capabilities.get();
  const state = read();
  return buildHeartbeat({
    name: state.identity?.name ?? s.runnerName,
    runnerVersion: deps.appVersion,
    // Quitting after the running turns: the control plane must not hand us more.
    paused: state.paused || state.stopping !== null,
    runtime: s.runtime,
    capabilities: capabilities as Capabilities,
    tripped: deps.breaker.state,
    os: { platform: deps.platform.platform, release: deps.platform.release, arch: deps.platform.arch },
    cpuCount: deps.cpuCount,
    // The machine's capacity, the same in every profile's heartbeat.
    sample: deps.history.latest(),
    activeSessions: state.active,
    maxSessions: s.maxSessions,
    modelAccount: { alias: s.modelAccountAlias, state: deps.accountState() },
  });
}
