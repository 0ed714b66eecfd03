import { mkdir } from 'node:fs/promises';
import { z } from 'zod';
import { UsageSchema, type Usage } from '../../../../shared/protocol';
import { redactText } from '../../../../shared/redact';
import { systemClock, type Clock, type Logger } from '../../ports';
import type { ExecutionOutcome, ExecutionRequest, UnitExecutor } from '../executor-port';
import { childEnv, commandFor } from './child-launch';
import { runChild, type ChildResult } from './child-run';
import { claudeJsonReport } from './claude-result';
import { runCodexAppServer } from './codex-app-server/app-server-executor';
import { AppServerPool } from './codex-app-server/server-pool';
import { RateLimitsReadResultSchema } from './codex-app-server/protocol';
import { readingFromWire } from './codex-app-server/rate-limits';
import type { RateLimitReading } from '../../../../shared/usage';
import { parseUsageLimit } from '../../usage/limit-messages';
import { CodexEventReader } from './codex-events';
import { clampSummary, composeSummary, decideStatus, type OutcomeReason, type OutcomeStatus } from './outcome';
import { CappedBuffer, TailBuffer, Throttle } from './output-capture';
import { CLAUDE_ALLOWED_TOOLS, MCP_SERVER_NAME, claudeInvocation, codexInvocation, type Invocation } from './runtime-args';
import type { RuntimeReport } from './runtime-report';
import { claudeSessionCwd, createTurnDir, mcpConfigDocument, removeTurnDir, sweepStaleTurnDirs, writeMcpConfig, type TurnDir } from './turn-files';

/**
 * The local runtime executor: from "run this unit with claude or codex" to its outcome.
 * One call of `execute` is one turn: private turn directory and MCP config, the runtime
 * process (tree) under a timeout and an abort signal, captured and redacted output, the
 * runtime's structured result parsed, and everything the turn created removed again.
 */
export type { ExecutionOutcome, ExecutionRequest, RuntimeName } from '../executor-port';

export interface LocalRuntimeExecutorOptions {
  /** Private directory for per-turn directories and MCP config files. */
  workRoot: string;
  log: Logger;
  clock?: Clock;
  /** SIGTERM → SIGKILL grace when stopping a process tree (default 1500). */
  killGraceMs?: number;
  /** Cap of captured output per stream (default 4 MiB); beyond it bytes are counted, not kept. */
  maxOutputBytes?: number;
  /** Size of the output tail for the UI (default 8 KiB). */
  tailBytes?: number;
  /** claude `--allowedTools` (default: every tool of the control plane's MCP server). */
  claudeAllowedTools?: readonly string[];
  /** How codex turns run when the request does not say (default: exec). */
  codexDriver?: (binary: string) => Promise<'exec' | 'app-server'>;
  /** The long-lived codex app-servers (default: a pool of this executor's own). */
  appServerPool?: AppServerPool;
  /** The runner's version, sent as the app-server client's version. */
  clientVersion?: string;
}

const OUTPUT_EMIT_INTERVAL_MS = 250;

const RequestSchema = z.object({
  unitId: z.string().min(1).max(200),
  kind: z.enum(['turn_execution', 'work_order']),
  runtime: z.enum(['claude', 'codex']),
  binary: z.string().min(1),
  prompt: z.string(),
  mcp: z
    .object({
      serverUrl: z.url({ protocol: /^https?$/ }),
      // Goes into an HTTP header and an environment variable: visible ASCII only.
      token: z.string().regex(/^[\x21-\x7e]+$/, 'token must be visible ASCII without spaces'),
    })
    .nullable(),
  // Passed as an option value: must not look like an option itself.
  resumeSessionId: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/).nullable(),
  timeoutMs: z.number().int().positive().max(7 * 24 * 3_600_000),
  env: z.record(z.string(), z.string()).optional(),
  knownSecrets: z.array(z.string()),
});

export class LocalRuntimeExecutor implements UnitExecutor {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly killGraceMs: number;
  private readonly maxOutputBytes: number;
  private readonly tailBytes: number;
  private readonly allowedTools: readonly string[];
  private readonly activeDirs = new Set<string>();
  private pool: AppServerPool | null;

  constructor(private readonly options: LocalRuntimeExecutorOptions) {
    this.log = options.log.child('executor');
    this.clock = options.clock ?? systemClock;
    this.killGraceMs = options.killGraceMs ?? 1_500;
    this.maxOutputBytes = options.maxOutputBytes ?? 4 * 1024 * 1024;
    this.tailBytes = options.tailBytes ?? 8 * 1024;
    this.allowedTools = options.claudeAllowedTools ?? CLAUDE_ALLOWED_TOOLS;
    this.pool = options.appServerPool ?? null;
  }

  /** Stops the long-lived codex app-servers (at quit). */
  async stop(): Promise<void> {
    await this.pool?.stopAll();
  }

  /**
   * Asks codex's app-server for the account's current windows (the usage probe). Null when
   * the account has none (an API-key account: codex answers "authentication required").
   */
  async readCodexRateLimits(binary: string, env: Record<string, string>, knownSecrets: readonly string[]): Promise<RateLimitReading | null> {
    const command = commandFor(binary, ['app-server']);
    await mkdir(this.options.workRoot, { recursive: true, mode: 0o700 });
    const connection = await this.appServers().acquire({ command: command.command, args: command.args, cwd: this.options.workRoot, env: childEnv(knownSecrets, env, command.env) });
    const answer = RateLimitsReadResultSchema.parse(await connection.request('account/rateLimits/read', undefined, 30_000));
    return readingFromWire(answer.rateLimits);
  }

  private appServers(): AppServerPool {
    this.pool ??= new AppServerPool({ log: this.log, clock: this.clock, clientVersion: this.options.clientVersion ?? '0', killGraceMs: this.killGraceMs });
    return this.pool;
  }

  private async codexDriver(request: ExecutionRequest): Promise<'exec' | 'app-server'> {
    if (request.codexDriver) return request.codexDriver;
    if (!this.options.codexDriver) return 'exec';
    try {
      return await this.options.codexDriver(request.binary);
    } catch (error) {
      this.log.warn('could not decide the codex driver; using codex exec', { error: String(error) });
      return 'exec';
    }
  }

  /** At start: removes turn directories (and the MCP configs in them) a crash left behind. */
  async sweepStale(): Promise<number> {
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

    const parsed = RequestSchema.safeParse(request);
    if (!parsed.success) {
      const where = parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`).join('; ');
      this.log.error('invalid execution request', { unitId: request.unitId, issues: where });
      return failEarly('spawn_error', `invalid execution request (${where})`);
    }

    let turn: TurnDir | null = null;
    let spawned = false;
    try {
      turn = await createTurnDir(this.options.workRoot, request.unitId);
      this.activeDirs.add(turn.root);
      if (request.runtime === 'codex' && (await this.codexDriver(request)) === 'app-server') {
        spawned = true;
        return await runCodexAppServer(request, turn.cwd, {
          pool: this.appServers(),
          serverCwd: this.options.workRoot,
          clock: this.clock,
          log: this.log,
          tailBytes: this.tailBytes,
          interruptGraceMs: this.killGraceMs,
        });
      }
      const invocation = await this.invocation(request, turn);
      const outcome = await this.run(request, invocation, started, () => (spawned = true));
      return outcome;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log.error('runtime turn failed in the runner', { unitId: request.unitId, error: redactText(message, secrets) });
      return failEarly(spawned ? 'runtime_error' : 'spawn_error', `runner error while running ${request.runtime}: ${message}`);
    } finally {
      if (turn) {
        await removeTurnDir(turn.root).catch((error: unknown) =>
          this.log.error('could not remove turn directory', { dir: turn?.root, error: String(error) }),
        );
        this.activeDirs.delete(turn.root);
      }
    }
  }

  private async invocation(request: ExecutionRequest, turn: TurnDir): Promise<Invocation & { cwd: string }> {
    if (request.runtime === 'codex') {
      if (request.resumeSessionId) this.log.warn('resume is claude only; running a fresh codex turn', { unitId: request.unitId });
      return { ...codexInvocation({ prompt: request.prompt, cwd: turn.cwd, mcp: request.mcp }), cwd: turn.cwd };
    }
    const mcpConfigPath = request.mcp
      ? await writeMcpConfig(turn.root, mcpConfigDocument(MCP_SERVER_NAME, request.mcp.serverUrl, request.mcp.token))
      : null;
    // Resumable turns (JSON) share one directory: claude finds a session only from where it ran.
    const cwd = request.kind === 'turn_execution' ? await claudeSessionCwd(this.options.workRoot) : turn.cwd;
    const invocation = claudeInvocation({
      prompt: request.prompt,
      kind: request.kind,
      mcpConfigPath,
      resumeSessionId: request.resumeSessionId,
      allowedTools: this.allowedTools,
    });
    return { ...invocation, cwd };
  }

  private async run(request: ExecutionRequest, invocation: Invocation & { cwd: string }, started: number, markSpawned: () => void): Promise<ExecutionOutcome> {
    const secrets = request.knownSecrets;
    const stdout = new CappedBuffer(this.maxOutputBytes);
    const stderr = new CappedBuffer(this.maxOutputBytes);
    const tail = new TailBuffer(this.tailBytes);
    const codex = invocation.outputMode === 'codex-jsonl' ? new CodexEventReader(this.maxOutputBytes) : null;
    const onOutput = request.onOutput;
    const throttle = new Throttle(this.clock, OUTPUT_EMIT_INTERVAL_MS, () => {
      if (!onOutput) return;
      try {
        onOutput(tail.render(secrets));
      } catch (error) {
        this.log.warn('onOutput callback threw', { error: String(error) });
      }
    });
    const command = commandFor(request.binary, invocation.args);
    const log = this.log.child(`turn:${request.unitId}`);

    let child: ChildResult;
    try {
      child = await runChild({
        command: command.command,
        args: command.args,
        cwd: invocation.cwd,
        env: childEnv(secrets, request.env ?? {}, invocation.env, command.env),
        timeoutMs: request.timeoutMs,
        signal: request.signal,
        killGraceMs: this.killGraceMs,
        clock: this.clock,
        log,
        onSpawn: (pid) => {
          markSpawned();
          log.info('runtime started', { runtime: request.runtime, kind: request.kind, pid, resumed: request.resumeSessionId !== null });
          request.onSpawn?.(pid);
        },
        onStdout: (chunk) => {
          stdout.push(chunk);
          tail.push(chunk);
          codex?.push(chunk);
          if (onOutput) throttle.poke();
        },
        onStderr: (chunk) => {
          stderr.push(chunk);
          tail.push(chunk);
          if (onOutput) throttle.poke();
        },
      });
    } finally {
      throttle.flush();
      throttle.cancel();
    }

    const report = this.report(invocation, stdout, codex);
    if (report.deniedTools && report.deniedTools.length > 0) {
      log.warn('the runtime was refused tools it asked for', { tools: [...new Set(report.deniedTools)] });
    }
    const { status, reason } = decideStatus(child, report);
    const outputTail = tail.render(secrets);
    const truncated = stdout.truncated || stderr.truncated;
    const summary = composeSummary(
      {
        runtime: request.runtime,
        binary: request.binary,
        timeoutMs: request.timeoutMs,
        child,
        report,
        // codex stdout is the event stream, never a summary by itself
        stdout: codex ? '' : stdout.text(),
        stderr: stderr.text(),
        stderrIsNoise: codex !== null,
        tail: outputTail,
        truncatedAtBytes: truncated ? this.maxOutputBytes : null,
        knownSecrets: secrets,
      },
      reason,
    );
    const usage = report.usage ? UsageSchema.safeParse(report.usage).data : undefined;
    const usageLimit = status === 'failed' && reason !== 'timeout' ? parseUsageLimit(report.text ?? `${stdout.text().slice(-4_000)}\n${stderr.text().slice(-4_000)}`, this.clock.now()) : null;
    const outcome: ExecutionOutcome = {
      status,
      reason,
      summary,
      exitCode: child.exitCode,
      ...(usage ? { usage } : {}),
      ...(report.sessionId ? { sessionId: report.sessionId } : {}),
      ...(usageLimit ? { usageLimit: { ...usageLimit, message: redactText(usageLimit.message, secrets) } } : {}),
      outputTail,
      durationMs: this.clock.now() - started,
      outputBytes: stdout.totalBytes + stderr.totalBytes,
    };
    log.info('runtime turn ended', {
      runtime: request.runtime,
      status,
      reason,
      exitCode: child.exitCode,
      durationMs: outcome.durationMs,
      outputBytes: outcome.outputBytes,
      ...(child.stopLatencyMs !== undefined ? { stopLatencyMs: child.stopLatencyMs } : {}),
    });
    return outcome;
  }

  private report(invocation: Invocation, stdout: CappedBuffer, codex: CodexEventReader | null): RuntimeReport {
    if (codex) return codex.end();
    if (invocation.outputMode === 'claude-json') return claudeJsonReport(stdout.text());
    return { ok: null, text: null };
  }
}
