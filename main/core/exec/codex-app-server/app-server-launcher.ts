import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { IsolationLevel } from '../../../../shared/isolation';
import { errorText } from '../../../../shared/errors';
import type { RateLimitReading } from '../../../../shared/usage';
import type { Clock, Logger } from '../../base/ports';
import { commandFor } from '../child-launch';
import { isolateTurn, prepareTurn, type PreparedTurn, type TurnContext, type TurnIsolationOptions } from '../isolation';
import type { EgressProxy } from '../isolation/egress/proxy';
import type { IsolationSpec } from '../isolation/spec';
import { createTurnDir, removeTurnDir, type TurnDir } from '../turn-files';
import { RateLimitsReadResultSchema } from './protocol';
import { readingFromWire } from './rate-limits';
import { AppServerPool } from './server-pool';
import type { AppServerSpawnSpec } from './spawn';

/** A codex app-server's own folder (CODEX_HOME, its turns' folders) and its prepared isolation. */
interface AppServerProfile {
  dir: TurnDir;
  ctx: TurnContext;
  prepared: PreparedTurn;
}

export interface AppServerLauncherOptions {
  /** The executor's private work root: each server profile gets a folder there. */
  workRoot: string;
  isolation: TurnIsolationOptions;
  log: Logger;
  clock: Clock;
  killGraceMs: number;
  /** The runner's version, sent as the app-server client's version. */
  clientVersion: string;
  /** The executor's live folders (kept out of the start-up sweep); server folders join them. */
  activeDirs: Set<string>;
  /** The long-lived servers (default: a pool of its own, made when first needed). */
  pool?: AppServerPool;
}

/**
 * How the runner starts `codex app-server`: one prepared, isolated profile per binary,
 * environment and isolation choice, and the pool of live servers they launch. Used by the
 * executor's app-server driver, the usage probe, and connectors that drive their own turns.
 */
export class AppServerLauncher {
  private pool: AppServerPool | null;
  /** One prepared app-server profile per binary, request env and isolation choice (see profile()). */
  private readonly profiles = new Map<string, Promise<AppServerProfile>>();
  /** The egress proxy of each live server (by its pool key): up before it starts, closed when it exits. */
  private readonly proxies = new Map<string, EgressProxy>();

  constructor(private readonly options: AppServerLauncherOptions) {
    this.pool = options.pool ?? null;
  }

  /** The server a unit's codex turn runs on: its launch, isolation level, the folder for the turn's own folder, and the pool. */
  async forTurn(
    binary: string,
    env: Readonly<Record<string, string>>,
    knownSecrets: readonly string[],
    /** The unit's MCP server: a server whose sandbox may reach it (another origin is another server). */
    egressUrls: readonly string[] = [],
  ): Promise<{ spec: AppServerSpawnSpec; level: IsolationLevel; dir: string; pool: AppServerPool }> {
    const profile = await this.profile(binary, env);
    const server = await this.spec(profile, binary, env, knownSecrets, { egressUrls });
    return { ...server, dir: profile.dir.root, pool: this.servers() };
  }

  /**
   * Asks codex's app-server for the account's current windows (the usage probe), through
   * the same isolated server profile as turns with this environment.
   */
  async readRateLimits(binary: string, env: Record<string, string>, knownSecrets: readonly string[]): Promise<RateLimitReading | null> {
    const profile = await this.profile(binary, env);
    const server = await this.spec(profile, binary, env, knownSecrets);
    const connection = await this.servers().acquire(server.spec);
    const answer = RateLimitsReadResultSchema.parse(await connection.request('account/rateLimits/read', undefined, 30_000));
    return readingFromWire(answer.rateLimits);
  }

  /**
   * The isolated launch of a `codex app-server` for a connector's own turns (a Sechroom
   * profile): the same private CODEX_HOME, clean environment and sandbox as a unit's, working
   * in `cwd` (the instance root, or a task's git worktree with `widen` adding what git needs).
   */
  async launchFor(
    binary: string,
    env: Record<string, string>,
    knownSecrets: readonly string[],
    launch: { cwd: string; widen?: (spec: IsolationSpec) => IsolationSpec; egressUrls?: readonly string[] },
  ): Promise<AppServerSpawnSpec> {
    const profile = await this.profile(binary, env);
    return (await this.spec(profile, binary, env, knownSecrets, launch)).spec;
  }

  /** Stops the servers (at quit) and removes their folders. */
  async stop(): Promise<void> {
    await this.pool?.stopAll();
    await Promise.all([...this.proxies.values()].map((proxy) => proxy.close()));
    this.proxies.clear();
    const profiles = await Promise.allSettled(this.profiles.values());
    this.profiles.clear();
    for (const settled of profiles) {
      if (settled.status !== 'fulfilled') continue;
      await removeTurnDir(settled.value.dir.root).catch((error: unknown) =>
        this.options.log.error('could not remove the app-server folder', { dir: settled.value.dir.root, error: errorText(error) }),
      );
      this.options.activeDirs.delete(settled.value.dir.root);
    }
  }

  private servers(): AppServerPool {
    this.pool ??= new AppServerPool({
      log: this.options.log,
      clock: this.options.clock,
      clientVersion: this.options.clientVersion,
      killGraceMs: this.options.killGraceMs,
    });
    return this.pool;
  }

  /**
   * The private state of the codex app-server for this binary and environment, prepared
   * once per profile, not per turn. The exec driver prepares a private CODEX_HOME inside
   * each turn's directory and deletes it with the turn; an app-server is long-lived and
   * serves many turns, so its CODEX_HOME must outlive any one turn and must not change
   * between turns (the pool keys servers by their launch, environment included: a per-turn
   * CODEX_HOME would start a new server for every unit). So each profile gets a folder of
   * its own under the work root (named like a turn folder, so a crash's leftovers are swept
   * at the next start), holding the private CODEX_HOME (generated config.toml, the
   * operator's auth.json) and the folders of the turns that server runs, which the sandbox
   * makes writable as a whole. Units of one profile share the process anyway; units of
   * other profiles and exec turns stay outside. A change of the isolation choice (the
   * sandbox probe's level, "use my own settings") is a new profile, hence a new server.
   */
  private async profile(binary: string, env: Readonly<Record<string, string>>): Promise<AppServerProfile> {
    const { isolation, workRoot, activeDirs } = this.options;
    const tools = await isolation.tools();
    const ownConfig = isolation.ownConfig();
    const sortedEnv = Object.entries(env).sort(([a], [b]) => (a < b ? -1 : 1));
    const key = createHash('sha256')
      .update(JSON.stringify([binary, sortedEnv, tools.level, ownConfig]))
      .digest('hex')
      .slice(0, 16);
    let profile = this.profiles.get(key);
    if (!profile) {
      profile = (async () => {
        const dir = await createTurnDir(workRoot, `codex-app-server-${key}`);
        activeDirs.add(dir.root);
        const ctx = { runtime: 'codex' as const, workRoot, turnRoot: dir.root, requestEnv: env, options: isolation };
        return { dir, ctx, prepared: await prepareTurn(ctx) };
      })();
      this.profiles.set(key, profile);
      // A profile that could not be prepared is tried again by the next turn.
      profile.catch(() => {
        if (this.profiles.get(key) === profile) this.profiles.delete(key);
      });
    }
    return profile;
  }

  /**
   * The server's launch through the isolation module: the clean environment (no RUNNER_*
   * or other runner variables), the profile's private CODEX_HOME and, where bubblewrap or
   * sandbox-exec is available, the sandbox around `codex app-server`. Built for every turn
   * (cheap, and it follows the known secrets), it comes out the same for one profile, so
   * the pool hands back the live server. `--ignore-rules` (exec's prepared option) is not
   * an app-server option; the private CODEX_HOME holds no rules of the operator's.
   */
  private async spec(
    profile: AppServerProfile,
    binary: string,
    env: Readonly<Record<string, string>>,
    knownSecrets: readonly string[],
    launch: { cwd?: string; widen?: (spec: IsolationSpec) => IsolationSpec; egressUrls?: readonly string[] } = {},
  ): Promise<{ spec: AppServerSpawnSpec; level: IsolationLevel }> {
    const command = commandFor(binary, ['app-server']);
    const isolated = await isolateTurn({ ...profile.ctx, requestEnv: env }, profile.prepared, {
      command: command.command,
      args: command.args,
      cwd: launch.cwd ?? profile.dir.cwd,
      binary,
      ownEnv: [command.env],
      knownSecrets,
      ...(launch.widen ? { widen: launch.widen } : {}),
      egressUrls: launch.egressUrls ?? [],
      log: this.options.log.child('egress'),
    });
    const spec: AppServerSpawnSpec = { command: isolated.command, args: isolated.args, cwd: isolated.cwd, env: isolated.env };
    const key = AppServerPool.keyOf(spec);
    const egress = isolated.egress;
    spec.beforeStart = async () => {
      await this.freshHome(profile);
      if (!egress) return;
      await this.proxies.get(key)?.close();
      this.proxies.set(key, await egress.start());
    };
    spec.afterExit = () => {
      const proxy = this.proxies.get(key);
      this.proxies.delete(key);
      void proxy?.close();
    };
    return { spec, level: isolated.level };
  }

  /**
   * Before every start of a server (the first and each respawn): its CODEX_HOME is made anew
   * from the sign-in copy and the generated config.toml, so an MCP server, AGENTS.md, rules
   * or anything else a turn planted there never reaches a later server. Same path, so the
   * launch (and the pool's key) stays the same.
   */
  private async freshHome(profile: AppServerProfile): Promise<void> {
    const home = profile.prepared.home.env.CODEX_HOME;
    if (!home || profile.prepared.ownConfig) return;
    await rm(home, { recursive: true, force: true, maxRetries: 3 });
    profile.prepared = await prepareTurn(profile.ctx);
  }
}
