import type { Profile, ProfileSummary } from '../../../../shared/profiles';
import { redactText } from '../../../../shared/redact';
import type { RunnerSnapshot } from '../../../../shared/runner';
import type { SechroomCredential, SechroomSettingsView } from '../../../../shared/sechroom-profile-contract';
import type { RunnerStatus } from '../../../../shared/status';
import type { PauseState } from '../../runner/pause-state';
import type { RunnerIdentity } from '../../runner/runner-state-store';
import type { SechroomSessionSnapshot } from './sechroom-session-executor';
import type { SechroomProfileConfig } from './sechroom-config';
import type { SechroomSessionDeps } from './sechroom-session-deps';
import type { SechroomSignIn } from './sechroom-sign-in';
import { sechroomStatus, sechroomTelemetry } from './sechroom-status';
import type { WorkLayerOperatorDeps } from './work-layer-operator';

/*
 * What a Sechroom profile's session shows of itself: its status in the one status model
 * (with any known secret redacted), the snapshot the window and the tray draw, its identity
 * and profile summary, the Settings view of its saved settings and credential, and the
 * Work view's access to its Work Layer. Plain functions of the session's state: the session
 * emits them on each change.
 */
/** What a Sechroom profile's session is at one moment, as its views read it. */
export interface SechroomSessionState {
  deps: Pick<SechroomSessionDeps, 'knownSecrets' | 'secretStorage' | 'tokenScope'>;
  /** The profile under its current name. */
  profile: Profile;
  config: SechroomProfileConfig | null;
  configProblem: string | null;
  signIn: SechroomSignIn;
  /** The executor's last status snapshot. */
  last: SechroomSessionSnapshot | null;
  instanceId: string | null;
  pauseState: PauseState;
  /** Tasks claimed and not ended. */
  active: number;
  stopping: { deadline: number; mode: 'after-turns' | 'now' } | null;
  started: boolean;
}

/** Its identity once its executor instance is registered. */
export function sessionIdentity(s: SechroomSessionState): RunnerIdentity | null {
  const instance = s.instanceId;
  if (!instance || !s.config) return null;
  return { runnerId: instance, tenantId: s.config.tenant, name: s.config.instance.instanceKey, controlPlaneUrl: s.config.baseUrl, pairedAt: '' };
}

export function sessionStatus(s: SechroomSessionState): RunnerStatus {
  const status = sechroomStatus({
    config: s.config,
    configProblem: s.configProblem,
    signedIn: s.signIn.signedIn,
    pairing: s.signIn.pairing,
    snapshot: s.last,
    paused: s.pauseState.current,
    active: s.active,
    stopping: s.stopping,
    started: s.started,
  });
  return { ...status, reason: redactText(status.reason, s.deps.knownSecrets()) };
}

export function sessionSnapshot(s: SechroomSessionState): RunnerSnapshot {
  const config = s.config;
  const identity = sessionIdentity(s);
  return {
    profile: s.profile.id,
    status: sessionStatus(s),
    pairing: s.signIn.pairing,
    identity: identity
      ? {
          runnerId: identity.runnerId,
          tenantId: identity.tenantId,
          tenantName: s.last?.tenantName ?? null,
          name: identity.name,
          controlPlane: identity.controlPlaneUrl,
          pairedAt: identity.pairedAt,
        }
      : null,
    secretStorage: s.deps.secretStorage,
    ...sechroomTelemetry(config, s.last),
    sessions: { active: s.active, max: 1 },
    results: { undelivered: s.last?.outboxPending ?? 0 },
    paused: s.pauseState.view(),
  };
}

/** This profile's Work Layer for the Work view: its settings and its credential, or why there is none. */
export async function sessionWorkLayerAccess(s: SechroomSessionState): Promise<WorkLayerOperatorDeps['access']> {
  const config = s.config;
  if (!config) {
    const why = s.configProblem ? `Its Sechroom settings cannot be used: ${s.configProblem}` : 'Set its Work Layer in Settings (Sechroom instance).';
    return { ok: false, message: `This profile has no Work Layer to show yet. ${why}` };
  }
  // The executor's own bearer when it has one (the Work view polls: no secret store read each time).
  const tokens = s.signIn.current ?? (await s.signIn.source(config));
  if (!tokens) return { ok: false, message: `Sign this profile in to the Work Layer at ${config.baseUrl} to see its work here.` };
  return { ok: true, access: { baseUrl: config.baseUrl, tenant: config.tenant, tokens } };
}

/** The saved settings for the Settings view (no secret is in them) and where the credential comes from. */
export function sessionSettingsView(s: SechroomSessionState): SechroomSettingsView {
  return {
    profile: s.profile.id,
    config: s.config,
    problem: s.configProblem,
    credential: credential(s),
    signedIn: s.signIn.signedIn,
  };
}

/** Where the credential comes from: what the executor uses now, and what its next start will use when that differs. */
function credential(s: SechroomSessionState): SechroomCredential {
  const { credential } = s.deps.tokenScope();
  if (!s.signIn.usingEnvToken || credential.source === 'env') return credential;
  return { source: 'env', note: `Token from SECHROOM_TOKEN since this profile's executor started; at its next start it is not used (${credential.note})` };
}

export function sessionSummary(s: SechroomSessionState): ProfileSummary {
  return {
    ...s.profile,
    controlPlaneUrl: s.config?.baseUrl ?? '',
    status: sessionStatus(s),
    runnerId: s.instanceId,
    paused: s.pauseState.current !== null,
    active: s.active,
  };
}
