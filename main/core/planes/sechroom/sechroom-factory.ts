import os from 'node:os';
import path from 'node:path';
import { GitWorkspaces, SechroomCodexTurns } from './delivery-wiring';
import { InstanceUsageLines } from './usage-lines';
import { lendingAdmission, runtimeAdmission } from './runtime-admission';
import type { LendingPort } from '../../lending/lending-gate';
import { profileLending } from '../../lending/profile-lending';
import { sechroomStorage } from './sechroom-storage';
import type { SechroomUsage } from './usage-account';
import type { RuntimeCapability } from '../../runner/capabilities';
import { GitDelivery } from '../../delivery/git-delivery';
import type { LocalRuntimeExecutor } from '../../exec/executor';
import type { OpenSecretStoreResult } from '../../secrets/open-secret-store';
import type { Profile } from '../../../../shared/profiles';
import { workLayerAccessFromEnv, type WorkLayerOperatorDeps } from './work-layer-operator';
import type { SessionContext } from '../../sessions/open-profile';
import type { SechroomProfileConfig } from './sechroom-config';
import { SechroomSession } from './sechroom-session';
import type { SechroomPlumbing, SechroomSessionDeps } from './sechroom-session-deps';
import type { RunnerSession } from '../../sessions/session';
import { sechroomTokenScope, type TokenScope } from './sechroom-token-scope';
import type { MachineSlots } from '../../sessions/machine-slots';

/** What every Sechroom session of the host shares (passed on to each as it is), and what the host needs for their plumbing. */
export interface SechroomHostDeps extends Pick<
  SechroomSessionDeps,
  'clock' | 'log' | 'random' | 'registry' | 'emit' | 'onChange' | 'registerSecret' | 'knownSecrets' | 'fetch' | 'autoClaim'
> {
  dataDir: string;
  secrets: OpenSecretStoreResult;
  /** This process's environment: SECHROOM_TOKEN, CODEX_BIN, HOME. */
  env: Readonly<Record<string, string | undefined>>;
  /** Extra env for runtime processes (tests point codex at a stub). */
  runtimeEnv: Record<string, string>;
  executor: Pick<LocalRuntimeExecutor, 'codexAppServerLaunch'>;
  /** The detected codex (used when neither the instance's codexBin nor CODEX_BIN says which), and whether it is signed in. */
  codex(): Promise<RuntimeCapability>;
  /** The shared usage accounts at an instance's own `--usage-reserve`, on the profile's own model account alias. */
  usageFor?(reservePercent: number, alias: () => string): SechroomUsage;
  appVersion: string;
  /** Settings a profile starts with (headless flags, a fleet import), saved over its stored ones. */
  initial: Readonly<Record<string, SechroomProfileConfig>>;
  /** The machine-wide cap on turns at once, shared with the Rost profiles. */
  machine?: MachineSlots;
  /** The host's lending terms: no task is claimed while one holds (composed with the usage admission). */
  lending?: LendingPort;
  /** The host's profiles now: which are Sechroom profiles decides whom SECHROOM_TOKEN signs in. */
  profiles(): readonly Profile[];
  /** [v1] How long an empty offers read is held (default DEFAULT_OFFER_WAIT_MS; 0 polls like the seed). */
  offerWaitMs?: number;
}

/**
 * The held offers read [v1] is on by default: a task offered to a waiting instance is
 * claimed as it appears instead of at the next 5 s poll. A Work Layer that ignores
 * `waitMs` answers at once, and the loop then polls as the seed does.
 */
export const DEFAULT_OFFER_WAIT_MS = 25_000;

/**
 * The host's side of Sechroom profiles: one GitDelivery for every profile (its worktrees
 * swept once at start), and the factory the profiles registry calls for a `sechroom` profile.
 */
export class SechroomHost {
  readonly delivery: GitDelivery;

  constructor(private readonly deps: SechroomHostDeps) {
    this.delivery = new GitDelivery({ stateDir: path.join(deps.dataDir, 'delivery'), log: deps.log.child('delivery') });
  }

  /** At host start: worktrees a crash left behind are removed (kept ones stay for the operator). */
  async sweep(): Promise<void> {
    const report = await this.delivery.sweep();
    if (report.removed.length > 0) this.deps.log.info('removed task worktrees left by a crash', { count: report.removed.length });
  }

  readonly factory = (context: SessionContext): SechroomSession => {
    const { deps } = this;
    return new SechroomSession({
      profile: context.profile,
      dir: context.dir,
      state: context.state,
      clock: deps.clock,
      log: context.log,
      ...(deps.random ? { random: deps.random } : {}),
      registry: deps.registry,
      emit: deps.emit,
      onChange: deps.onChange,
      secrets: deps.secrets.ok ? deps.secrets.store : null,
      secretStorage: deps.secrets.ok
        ? { backend: deps.secrets.backend, warning: deps.secrets.warning ?? null, problem: null }
        : { backend: 'none', warning: null, problem: deps.secrets.reason },
      registerSecret: deps.registerSecret,
      knownSecrets: deps.knownSecrets,
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      tokenScope: () => this.tokenScope(context.profile.id),
      ...(deps.initial[context.profile.id] ? { initial: deps.initial[context.profile.id]! } : {}),
      plumbing: (config) => this.plumbing(config, context),
      autoClaim: deps.autoClaim,
      offerWaitMs: deps.offerWaitMs ?? DEFAULT_OFFER_WAIT_MS,
    });
  };

  /** Whether SECHROOM_TOKEN signs this profile in (sechroom-token-scope.ts). */
  tokenScope(profile: string): TokenScope {
    const commandLine = Object.keys(this.deps.initial);
    const ids = new Set([
      ...this.deps
        .profiles()
        .filter((p) => p.connector === 'sechroom')
        .map((p) => p.id),
      ...commandLine,
      profile,
    ]);
    return sechroomTokenScope(this.deps.env, { profile, sechroomProfiles: [...ids], commandLine });
  }

  private plumbing(config: SechroomProfileConfig, context: SessionContext): SechroomPlumbing {
    const { log, settings, profile } = context;
    const { deps } = this;
    const root = config.instance.root;
    // A codex the operator named (the instance's, CODEX_BIN) is theirs to vouch for; the detected one must be signed in.
    const named = Boolean(config.instance.codexBin ?? deps.env.CODEX_BIN);
    const account = deps.usageFor?.(config.instance.usageReservePercent, () => settings.get().modelAccountAlias);
    // The seed's per-instance usage lines beside the shared account's accounting.
    const usage = account ? new InstanceUsageLines(config.instance.instanceKey, log, () => deps.clock.now()).around(account) : undefined;
    const workspaces = config.deliver
      ? new GitWorkspaces({ delivery: this.delivery, settings: config.instance, raisePr: config.raisePr, maxPushMiB: config.maxPushMiB, log })
      : null;
    const turns = new SechroomCodexTurns({
      launch: async (launch) => {
        const binary = config.instance.codexBin ?? deps.env.CODEX_BIN ?? (await deps.codex()).path ?? null;
        if (!binary) throw new Error('codex is not installed here (set CODEX_BIN or the instance’s codex binary)');
        return { ...(await deps.executor.codexAppServerLaunch(binary, deps.runtimeEnv, deps.knownSecrets(), launch)), binary };
      },
      workspaces,
      operator: { home: deps.env.HOME || os.homedir(), env: deps.env },
      ...(usage ? { usage } : {}),
      // The Turns view's row of a Sechroom turn is `sechroom:<lease id>` (turn-records.ts).
      transcript: { onTranscript: (leaseId, line) => deps.registry.transcript(`sechroom:${leaseId}`, line), knownSecrets: deps.knownSecrets },
      clientVersion: deps.appVersion,
      clock: deps.clock,
      log,
    });
    const machine = deps.machine;
    const usageAdmission = named ? usage?.admission : runtimeAdmission(deps.codex, usage?.admission);
    // The host's terms, narrowed by the profile's own hours.
    const admission = deps.lending ? lendingAdmission(profileLending(deps.lending, deps.clock, settings), usageAdmission) : usageAdmission;
    return {
      turns,
      storage: sechroomStorage(context.dir, path.join(deps.dataDir, 'turns'), { clock: deps.clock, log, ...(deps.random ? { random: deps.random } : {}) }),
      ...(machine ? { machine: { acquire: (signal: AbortSignal) => machine.acquire(profile.id, signal), free: () => machine.free() } } : {}),
      ...(workspaces ? { workspace: workspaces, root: { check: () => this.delivery.checkRoot(root) } } : {}),
      ...(admission ? { admission } : {}),
    };
  }
}

/** Said in the Work view while a Rost profile is shown (and no Work Layer is set in the environment). */
export const WORK_VIEW_SECHROOM_ONLY =
  'The Work view belongs to Sechroom profiles: show one with the profile switcher, or add one in Settings. (Or set RUNNER_TRAY_SECHROOM_URL, RUNNER_TRAY_SECHROOM_TENANT and SECHROOM_TOKEN for a Work Layer of the host.)';

/**
 * The Work Layer the Work view shows for the profile shown: a Sechroom profile's own (its
 * settings and its credential), else the environment's (RUNNER_TRAY_SECHROOM_URL …), else
 * nothing, saying the view belongs to Sechroom profiles. No profile named: the first Sechroom one.
 */
export function workViewAccess(
  env: Readonly<Record<string, string | undefined>>,
  sessions: readonly RunnerSession[],
  profile: string | null,
): Promise<WorkLayerOperatorDeps['access']> {
  const shown = profile === null ? sessions.find((s) => s instanceof SechroomSession) : sessions.find((s) => s.profile.id === profile);
  if (shown instanceof SechroomSession) return shown.workLayerAccess();
  const fromEnv = workLayerAccessFromEnv(env);
  if (fromEnv.ok || env.RUNNER_TRAY_SECHROOM_URL || env.RUNNER_TRAY_SECHROOM_TENANT) return Promise.resolve(fromEnv);
  return Promise.resolve({ ok: false, message: WORK_VIEW_SECHROOM_ONLY });
}
