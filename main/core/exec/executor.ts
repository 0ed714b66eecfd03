import { redactText } from '../../../shared/redact';
import { systemClock, type Clock, type Logger } from '../base/ports';
import type { ExecutionOutcome, ExecutionRequest, UnitExecutor } from './executor-port';
import { lifelineSupported } from './lifeline';
import { WarmLauncher } from './warm-launcher';
import { SpareSandboxes, type SpareSandbox } from './warm-sandbox';
import { makeSpare, spareShape, spareTemplate } from './spare-turn';
import { pickupTrace } from './pickup-trace';
import { runCodexAppServer } from './codex-app-server/app-server-executor';
import { AppServerLauncher } from './codex-app-server/app-server-launcher';
import type { AppServerPool } from './codex-app-server/server-pool';
import type { AppServerSpawnSpec } from './codex-app-server/spawn';
import type { RateLimitReading } from '../../../shared/usage';
import { clampSummary, type OutcomeReason } from './outcome';
import { ENVIRONMENT_ONLY, prepareTurn, type PreparedTurn, type TurnIsolationOptions } from './isolation';
import type { IsolationSpec } from './isolation/spec';
import { CLAUDE_ALLOWED_TOOLS, MCP_SERVER_NAME, claudeInvocation, codexInvocation, type Invocation } from './runtime-args';
import path from 'node:path';
import { MCP_CONFIG_FILE, claudeSessionCwd, createTurnDir, mcpConfigDocument, removeTurnDir } from './turn-files';
import { sweepStaleTurnDirs, writeMcpConfig, type TurnDir } from './turn-files';
import { errorText } from '../../../shared/errors';
import { keepSession, removeLegacyClaudeConfig } from './isolation/claude-sessions';
import { requestProblem } from './turn-request';
import { runChildTurn, type ChildTurnDeps } from './child-turn';

/**
 * The local runtime executor: from "run this unit with claude or codex" to its outcome.
 * One call of `execute` is one turn: private turn directory and MCP config, the runtime
 * process (tree) under a timeout and an abort signal, captured and redacted output, the
 * runtime's structured result parsed, and everything the turn created removed again.
 */
export type { ExecutionOutcome, ExecutionRequest } from './executor-port';

export interface LocalRuntimeExecutorOptions {
  /** Private directory for per-turn directories and MCP config files. */
  workRoot: string;
  log: Logger;
  clock?: Clock;
  /** SIGTERM → SIGKILL grace when stopping a process tree (default 1500). */
  killGraceMs?: number;
  /** Start runtimes through the parent-death watch (default: on, where supported). */
  parentDeathWatch?: boolean;
  /** Cap of captured output per stream (default 4 MiB); beyond it bytes are counted, not kept. */
  maxOutputBytes?: number;
  /** Size of the output tail for the UI (default 8 KiB). */
  tailBytes?: number;
  /** claude `--allowedTools` (default: every tool of the control plane's MCP server). */
  claudeAllowedTools?: readonly string[];
  /** Sandbox, clean environment and private runtime config (default: environment only, no extra names). */
  isolation?: TurnIsolationOptions;
  /** How codex turns run when the request does not say (default: exec). */
  codexDriver?: (binary: string) => Promise<'exec' | 'app-server'>;
  /** The long-lived codex app-servers (default: a pool of this executor's own). */
  appServerPool?: AppServerPool;
  /** The runner's version, sent as the app-server client's version. */
  clientVersion?: string;
  /** Sandboxes started ahead for the next turns (warm-sandbox.ts; default 1, 0: none). */
  spareSandboxes?: number;
}

const DEFAULT_ISOLATION: TurnIsolationOptions = {
  tools: () => Promise.resolve(ENVIRONMENT_ONLY),
  extraEnvAllow: () => [],
  ownConfig: () => false,
  hidden: [],
};

export class LocalRuntimeExecutor implements UnitExecutor {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly killGraceMs: number;
  private readonly lifeline: boolean;
  private readonly maxOutputBytes: number;
  private readonly tailBytes: number;
  private readonly allowedTools: readonly string[];
  private readonly activeDirs = new Set<string>();
  private readonly isolation: TurnIsolationOptions;
  /** The long-lived codex app-servers of the app-server driver and the usage probe. */
  private readonly appServers: AppServerLauncher;
  /** The parent-death launcher started ahead for the next turn outside bubblewrap. */
  private readonly warm: WarmLauncher;
  /** The sandboxes started ahead for the next turns in bubblewrap. */
  private readonly spares: SpareSandboxes;

  constructor(private readonly options: LocalRuntimeExecutorOptions) {
    this.log = options.log.child('executor');
    this.clock = options.clock ?? systemClock;
    this.killGraceMs = options.killGraceMs ?? 1_500;
    this.lifeline = (options.parentDeathWatch ?? true) && lifelineSupported();
    this.maxOutputBytes = options.maxOutputBytes ?? 4 * 1024 * 1024;
    this.tailBytes = options.tailBytes ?? 8 * 1024;
    this.allowedTools = options.claudeAllowedTools ?? CLAUDE_ALLOWED_TOOLS;
    this.isolation = options.isolation ?? DEFAULT_ISOLATION;
    this.warm = new WarmLauncher(this.log);
    this.spares = new SpareSandboxes({
      clock: this.clock,
      log: this.log,
      size: options.spareSandboxes ?? 1,
      removeTurn: (turn) => this.removeSpareTurn(turn),
    });
    this.appServers = new AppServerLauncher({
      workRoot: options.workRoot,
      isolation: this.isolation,
      log: this.log,
      clock: this.clock,
      killGraceMs: this.killGraceMs,
      clientVersion: options.clientVersion ?? '0',
      activeDirs: this.activeDirs,
      ...(options.appServerPool ? { pool: options.appServerPool } : {}),
    });
  }

  /** Stops the long-lived codex app-servers (at quit) and removes their folders, and the spare launcher. */
  async stop(): Promise<void> {
    this.warm.stop();
    await Promise.all([this.spares.stop(), this.appServers.stop()]);
  }

  /** At pause: the sandboxes started ahead are ended (the next turn's start makes them again). */
  dropSpares(): Promise<void> {
    return this.spares.drop();
  }

  /**
   * Asks codex's app-server for the account's current windows (the usage probe). Null when
   * the account has none (an API-key account: codex answers "authentication required").
   */
  readCodexRateLimits(binary: string, env: Record<string, string>, knownSecrets: readonly string[]): Promise<RateLimitReading | null> {
    return this.appServers.readRateLimits(binary, env, knownSecrets);
  }

  /** The isolated launch of a `codex app-server` for a connector's own turns (see AppServerLauncher.launchFor). */
  codexAppServerLaunch(
    binary: string,
    env: Record<string, string>,
    knownSecrets: readonly string[],
    launch: { cwd: string; widen?: (spec: IsolationSpec) => IsolationSpec },
  ): Promise<AppServerSpawnSpec> {
    return this.appServers.launchFor(binary, env, knownSecrets, launch);
  }

  private async codexDriver(request: ExecutionRequest): Promise<'exec' | 'app-server'> {
    if (request.codexDriver) return request.codexDriver;
    if (!this.options.codexDriver) return 'exec';
    try {
      return await this.options.codexDriver(request.binary);
    } catch (error) {
      this.log.warn('could not decide the codex driver; using codex exec', { error: errorText(error) });
      return 'exec';
    }
  }

  /** At start: removes turn directories (and the MCP configs in them) a crash left behind. */
  async sweepStale(): Promise<number> {
    if (await removeLegacyClaudeConfig(this.options.workRoot)) this.log.info('removed the shared claude config folder of an earlier version');
    const removed = await sweepStaleTurnDirs(this.options.workRoot, this.activeDirs);
    if (removed > 0) this.log.info('removed stale turn directories', { count: removed });
    return removed;
  }

  /** Never throws for runtime problems: they come back as a failed outcome with a reason. */
  async execute(request: ExecutionRequest): Promise<ExecutionOutcome> {
    const started = this.clock.now();
    const secrets = request.knownSecrets;
    const failEarly = (reason: OutcomeReason, message: string): ExecutionOutcome => ({
      status: 'failed',
      reason,
      summary: clampSummary(redactText(message, secrets), null),
      exitCode: null,
      outputTail: '',
      durationMs: this.clock.now() - started,
      outputBytes: 0,
    });

    const problem = requestProblem(request, this.log);
    if (problem) return failEarly('spawn_error', problem);
    // The control plane refused the start: nothing ran (or what started never had its prompt).
    const notStarted = (): ExecutionOutcome => ({ ...failEarly('spawn_error', 'the control plane refused the start'), status: 'canceled', reason: 'canceled' });

    let turn: TurnDir | null = null;
    let spare: SpareSandbox | null = null;
    let spawned = false;
    try {
      if (request.runtime === 'codex' && (await this.codexDriver(request)) === 'app-server') {
        const server = await this.appServers.forTurn(request.binary, request.env ?? {}, request.knownSecrets, request.mcp ? [request.mcp.serverUrl] : []);
        // The turn's folder lives in its server's folder: the server's sandbox can write there.
        turn = await createTurnDir(server.dir, request.unitId);
        if (!(await (request.startAccepted ?? true))) return notStarted();
        spawned = true;
        return await runCodexAppServer(request, turn.cwd, {
          pool: server.pool,
          server: server.spec,
          isolation: server.level,
          clock: this.clock,
          log: this.log,
          tailBytes: this.tailBytes,
          interruptGraceMs: this.killGraceMs,
        });
      }
      const trace = pickupTrace();
      const shape = await spareShape(request, this.isolation);
      spare = this.spares.take(shape);
      turn = spare?.turn ?? (await createTurnDir(this.options.workRoot, request.unitId));
      this.activeDirs.add(turn.root);
      const context = this.turnContext(request, turn);
      const prepared = spare?.prepared ?? (await prepareTurn(context));
      const invocation = await this.invocation(request, turn, prepared);
      trace.mark(spare ? 'spareTakenAndTurnFilesMs' : 'turnFolderHomeAndFilesMs');
      const outcome = await runChildTurn(this.childTurnDeps(), {
        request,
        context,
        prepared,
        invocation,
        started,
        spare,
        trace,
        markSpawned: () => {
          spawned = true;
          this.fillSpare(shape, request);
        },
      });
      await keepSession(this.options.workRoot, prepared, outcome?.sessionId, this.log);
      return outcome ?? notStarted();
    } catch (error) {
      const message = errorText(error);
      this.log.error('runtime turn failed in the runner', { unitId: request.unitId, error: redactText(message, secrets) });
      return failEarly(spawned ? 'runtime_error' : 'spawn_error', `runner error while running ${request.runtime}: ${message}`);
    } finally {
      if (spare) await this.spares.release(spare);
      if (turn) {
        const dir = turn.root;
        // The turn's broker token opens nothing from here on (a copy it carried off included).
        this.isolation.broker?.revoke(dir);
        const removal = removeTurnDir(dir)
          .catch((error: unknown) => this.log.error('could not remove turn directory', { dir, error: errorText(error) }))
          .finally(() => this.activeDirs.delete(dir));
        if (request.cleanupLater) request.cleanupLater(removal);
        else await removal;
      }
    }
  }

  private turnContext(request: ExecutionRequest, turn: TurnDir) {
    const { runtime, resumeSessionId } = request;
    return { runtime, resumeSessionId, workRoot: this.options.workRoot, turnRoot: turn.root, requestEnv: request.env ?? {}, options: this.isolation };
  }

  /** The next turn of this shape finds its sandbox started, its folder and private home made (none for a null shape). */
  private fillSpare(shape: string | null, request: ExecutionRequest): void {
    if (shape === null) return;
    const deps = {
      workRoot: this.options.workRoot,
      clock: this.clock,
      log: this.log.child('spare'),
      activeDirs: this.activeDirs,
      context: (r: ExecutionRequest, t: TurnDir) => this.turnContext(r, t),
      invocation: (r: ExecutionRequest, t: TurnDir, p: PreparedTurn) => this.invocation(r, t, p, false),
      removeTurn: (t: TurnDir) => this.removeSpareTurn(t),
    };
    this.spares.fill(shape, () => makeSpare(deps, shape, spareTemplate(request)));
  }

  private removeSpareTurn(turn: TurnDir): Promise<void> {
    this.isolation.broker?.revoke(turn.root);
    return removeTurnDir(turn.root).finally(() => this.activeDirs.delete(turn.root));
  }

  /** `writeFiles` false (a spare sandbox): the MCP config's path as the turn's, nothing written. */
  private async invocation(request: ExecutionRequest, turn: TurnDir, prepared: PreparedTurn, writeFiles = true): Promise<Invocation & { cwd: string }> {
    if (request.runtime === 'codex') {
      if (request.resumeSessionId) this.log.warn('resume is claude only; running a fresh codex turn', { unitId: request.unitId });
      const codex = codexInvocation({ prompt: request.prompt, cwd: turn.cwd, mcp: request.mcp, extraArgs: prepared.home.args });
      return { ...codex, cwd: turn.cwd };
    }
    const [mcpConfigPath, cwd] = await Promise.all([
      !request.mcp
        ? null
        : writeFiles
          ? writeMcpConfig(turn.root, mcpConfigDocument(MCP_SERVER_NAME, request.mcp.serverUrl, request.mcp.token))
          : path.join(turn.root, MCP_CONFIG_FILE),
      // Resumable turns (JSON) share one directory: claude finds a session only from where it ran.
      request.kind === 'turn_execution' ? claudeSessionCwd(this.options.workRoot) : turn.cwd,
    ]);
    const invocation = claudeInvocation({
      prompt: request.prompt,
      kind: request.kind,
      mcpConfigPath,
      resumeSessionId: request.resumeSessionId,
      allowedTools: this.allowedTools,
      ownConfig: prepared.ownConfig,
    });
    return { ...invocation, cwd };
  }

  private childTurnDeps(): ChildTurnDeps {
    const { clock, log, killGraceMs, lifeline, maxOutputBytes, tailBytes, warm } = this;
    return { clock, log, killGraceMs, lifeline, maxOutputBytes, tailBytes, warm };
  }
}
