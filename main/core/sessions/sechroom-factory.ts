import os from 'node:os';
import path from 'node:path';
import { GitWorkspaces, SechroomCodexTurns } from '../connectors/sechroom/delivery-wiring';
import type { SechroomUsage } from '../connectors/sechroom/usage-account';
import { GitDelivery } from '../delivery/git-delivery';
import type { LocalRuntimeExecutor } from '../exec/executor';
import type { OpenSecretStoreResult } from '../secrets/open-secret-store';
import type { Profile } from '../../../shared/profiles';
import { OAuthTokenSource, sechroomOAuthClient, StaticTokenSource } from '../connectors/sechroom/sechroom-auth';
import { workLayerAccessFromEnv, type WorkLayerOperatorDeps } from '../operator/work-layer-operator';
import type { SessionContext } from './open-profile';
import { profileDir } from './profile-store';
import { loadSechroomConfig, type SechroomProfileConfig } from './sechroom-config';
import { SechroomSession, type SechroomPlumbing, type SechroomSessionDeps } from './sechroom-session';
import { SECHROOM_OAUTH_CLIENT_ID, sechroomAccountOf } from './sechroom-sign-in';

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
  /** The detected codex (when neither the instance's codexBin nor CODEX_BIN says which). */
  codexPath(): Promise<string | null>;
  /** The shared usage accounts at an instance's own `--usage-reserve`, on the profile's own model account alias. */
  usageFor?(reservePercent: number, alias: () => string): SechroomUsage;
  appVersion: string;
  /** Settings a profile starts with (headless flags, a fleet import), saved over its stored ones. */
  initial: Readonly<Record<string, SechroomProfileConfig>>;
}

/**
 * The host's side of Sechroom profiles: one GitDelivery for every profile (its worktrees
 * swept once at start), and the factory the profiles registry calls for a `sechroom` profile.
 */
export class SechroomHost {
  readonly delivery: GitDelivery;

  constructor(private readonly deps: SechroomHostDeps) {
    this.delivery = new GitDelivery({ stateDir: path.join(deps.dataDir, 'delivery'), log: deps.log.child('delivery') });
  }

  /** The Work Layer the Work view shows (see workViewAccess). */
  workViewAccess(profiles: readonly Profile[]): Promise<WorkLayerOperatorDeps['access']> {
    return workViewAccess(this.deps, profiles);
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
      envToken: deps.env.SECHROOM_TOKEN?.trim() || null,
      ...(deps.initial[context.profile.id] ? { initial: deps.initial[context.profile.id]! } : {}),
      plumbing: (config) => this.plumbing(config, context),
      autoClaim: deps.autoClaim,
    });
  };

  private plumbing(config: SechroomProfileConfig, { log, settings }: SessionContext): SechroomPlumbing {
    const { deps } = this;
    const root = config.instance.root;
    const usage = deps.usageFor?.(config.instance.usageReservePercent, () => settings.get().modelAccountAlias);
    const workspaces = config.deliver ? new GitWorkspaces({ delivery: this.delivery, settings: config.instance, raisePr: config.raisePr, log }) : null;
    const turns = new SechroomCodexTurns({
      launch: async (launch) => {
        const binary = config.instance.codexBin ?? deps.env.CODEX_BIN ?? (await deps.codexPath());
        if (!binary) throw new Error('codex is not installed here (set CODEX_BIN or the instance’s codex binary)');
        return deps.executor.codexAppServerLaunch(binary, deps.runtimeEnv, deps.knownSecrets(), launch);
      },
      workspaces,
      operator: { home: deps.env.HOME || os.homedir(), env: deps.env },
      ...(usage ? { usage } : {}),
      clientVersion: deps.appVersion,
      clock: deps.clock,
      log,
    });
    return {
      turns,
      ...(workspaces ? { workspace: workspaces, root: { check: () => this.delivery.checkRoot(root) } } : {}),
      ...(usage ? { admission: usage.admission } : {}),
    };
  }
}

async function workViewAccess(options: SechroomHostDeps, profiles: readonly Profile[]): Promise<WorkLayerOperatorDeps['access']> {
  const fromEnv = workLayerAccessFromEnv(options.env);
  if (fromEnv.ok || options.env.RUNNER_TRAY_SECHROOM_URL) return fromEnv;
  const initial = Object.entries(options.initial)[0];
  let found: { id: string; config: SechroomProfileConfig } | null = initial ? { id: initial[0], config: initial[1] } : null;
  for (const profile of profiles) {
    if (found) break;
    if (profile.connector !== 'sechroom') continue;
    const config = await loadSechroomConfig(profileDir(options.dataDir, profile.id)).catch(() => null);
    if (config) found = { id: profile.id, config };
  }
  if (!found) return fromEnv;
  const { id, config } = found;
  const token = options.env.SECHROOM_TOKEN?.trim();
  if (token) return { ok: true, access: { baseUrl: config.baseUrl, tenant: config.tenant, tokens: new StaticTokenSource(token) } };
  if (!options.secrets.ok) return { ok: false, message: 'No secret store works here, so the Work view has no Sechroom sign-in to use.' };
  const tokens = new OAuthTokenSource({
    baseUrl: config.baseUrl,
    account: sechroomAccountOf(id, config),
    store: options.secrets.store,
    registerSecret: options.registerSecret,
    oauth: sechroomOAuthClient({
      baseUrl: config.baseUrl,
      clientId: SECHROOM_OAUTH_CLIENT_ID,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      knownSecrets: options.knownSecrets,
    }),
    clock: options.clock,
    log: options.log.child('work-layer'),
  });
  return { ok: true, access: { baseUrl: config.baseUrl, tenant: config.tenant, tokens } };
}
