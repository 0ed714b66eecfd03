import { errorText } from '../../../../shared/errors';
import type { IsolationLevel } from '../../../../shared/isolation';
import { redactText } from '../../../../shared/redact';
import type { Clock, Logger } from '../../base/ports';
import { parseUsageLimit } from '../limit-messages';
import type { ExecutionOutcome, ExecutionRequest } from '../executor-port';
import { clampSummary } from '../outcome';
import { TailBuffer, Throttle } from '../output-capture';
import { CODEX_SANDBOX, MCP_SERVER_NAME } from '../runtime-args';
import type { AppServerPool } from './server-pool';
import type { AppServerSpawnSpec } from './spawn';
import { TranscriptWriter } from '../transcript-writer';
import { appServerTranscript } from './transcript';
import { runAppServerTurn, type AppServerTurnResult } from './turn-runner';

/**
 * A codex unit through the app-server: the pooled server for this profile and folder, one
 * thread per unit in the unit's own folder, the control plane's MCP server and its token in
 * the thread's config (over the pipe, never in argv or the environment), and the turn's
 * result turned into the executor's outcome.
 */
export interface AppServerRunOptions {
  pool: AppServerPool;
  /**
   * How the server is started: already isolated (clean environment, private CODEX_HOME,
   * the sandbox wrapper; see LocalRuntimeExecutor.appServerSpec). Stable across turns of
   * one profile, so units share the process.
   */
  server: AppServerSpawnSpec;
  /** The isolation level the server runs with (logged with each turn). */
  isolation: IsolationLevel;
  clock: Clock;
  log: Logger;
  tailBytes: number;
  interruptGraceMs?: number;
}

const OUTPUT_EMIT_INTERVAL_MS = 250;
const RESUME_BOUND_MS = 15 * 60_000;

export function appServerConfig(mcp: ExecutionRequest['mcp']): Record<string, unknown> | undefined {
  if (!mcp) return undefined;
  const server = `mcp_servers.${MCP_SERVER_NAME}`;
  return {
    [`${server}.url`]: mcp.serverUrl,
    [`${server}.http_headers`]: { Authorization: `Bearer ${mcp.token}` },
    // Under approval policy never a tool call that would ask is refused: approve them.
    [`${server}.default_tools_approval_mode`]: 'approve',
  };
}

export async function runCodexAppServer(request: ExecutionRequest, turnCwd: string, options: AppServerRunOptions): Promise<ExecutionOutcome> {
  const started = options.clock.now();
  const secrets = request.knownSecrets;
  const log = options.log.child(`turn:${request.unitId}`);
  const tail = new TailBuffer(options.tailBytes);
  const throttle = new Throttle(options.clock, OUTPUT_EMIT_INTERVAL_MS, () => {
    try {
      request.onOutput?.(tail.render(secrets));
    } catch (error) {
      log.warn('onOutput callback threw', { error: errorText(error) });
    }
  });
  const line = (text: string) => {
    tail.push(Buffer.from(`${text}\n`, 'utf8'));
    if (request.onOutput) throttle.poke();
  };
  const transcript = request.onTranscript ? new TranscriptWriter(request.onTranscript, secrets) : null;
  let connection;
  try {
    connection = await options.pool.acquire(options.server);
  } catch (error) {
    const message = errorText(error);
    log.error('could not start codex app-server', { error: redactText(message, secrets) });
    return {
      status: 'failed',
      reason: 'spawn_error',
      summary: clampSummary(redactText(`could not start codex app-server (${request.binary}): ${message}`, secrets), null),
      exitCode: null,
      outputTail: '',
      durationMs: options.clock.now() - started,
      outputBytes: 0,
    };
  }
  if (connection.pid !== undefined) request.onSpawn?.(connection.pid);
  log.info('runtime started', { runtime: 'codex', driver: 'app-server', kind: request.kind, pid: connection.pid, isolation: options.isolation });

  let result: AppServerTurnResult;
  try {
    result = await runAppServerTurn({
      connection,
      cwd: turnCwd,
      prompt: request.prompt,
      developerInstructions: request.developerInstructions ?? null,
      sandbox: CODEX_SANDBOX,
      config: appServerConfig(request.mcp),
      ...(request.tools ? { tools: request.tools } : {}),
      timeoutMs: request.timeoutMs,
      // One continuation after a timeout, bounded apart: a stuck turn never gets a second full budget.
      resumeTimeoutMs: Math.min(request.timeoutMs, RESUME_BOUND_MS),
      ...(options.interruptGraceMs !== undefined ? { interruptGraceMs: options.interruptGraceMs } : {}),
      signal: request.signal,
      clock: options.clock,
      log,
      kill: () => options.pool.kill(connection),
      onLine: line,
      ...(transcript ? { onNotification: (method: string, params: unknown) => appServerTranscript(method, params, transcript) } : {}),
      ...(request.onRateLimits ? { onRateLimits: request.onRateLimits } : {}),
    });
  } finally {
    transcript?.end();
    throttle.flush();
    throttle.cancel();
  }
  const outcome = toOutcome(request, result, tail.render(secrets), options.clock.now() - started, options.clock.now());
  logTurnEnd(log, outcome, result);
  return outcome;
}

/** The turn's end in the log: how it ended, the thread, and its token counts. */
function logTurnEnd(log: Logger, outcome: ExecutionOutcome, result: AppServerTurnResult): void {
  log.info('runtime turn ended', {
    runtime: 'codex',
    driver: 'app-server',
    status: outcome.status,
    reason: outcome.reason,
    threadId: result.threadId,
    resumed: result.resumed,
    nudged: result.nudged,
    denied: result.deniedRequests.length,
    killed: result.killed,
    ...(result.tokens
      ? {
          model: result.tokens.modelId,
          tokensIn: result.tokens.inputTokens,
          tokensOut: result.tokens.outputTokens,
          contextUsed: result.tokens.contextUsed,
          contextWindow: result.tokens.contextWindow,
        }
      : {}),
  });
}

function toOutcome(request: ExecutionRequest, r: AppServerTurnResult, outputTail: string, durationMs: number, now: number): ExecutionOutcome {
  const secrets = request.knownSecrets;
  const denied = r.deniedRequests.length > 0 ? `\n[declined ${r.deniedRequests.length} approval request(s): ${[...new Set(r.deniedRequests)].join(', ')}]` : '';
  const answer = r.lastAgentMessage?.trim() || 'completed';
  const base = {
    exitCode: null,
    outputTail,
    durationMs,
    outputBytes: Buffer.byteLength(outputTail),
    ...(r.threadId ? { sessionId: r.threadId } : {}),
    ...(r.tokens ? { usage: { input_tokens: r.tokens.inputTokens, output_tokens: r.tokens.outputTokens } } : {}),
    ...(r.closeout !== undefined ? { closeout: r.closeout } : {}),
    ...(r.tokens ? { context: { modelId: r.tokens.modelId, used: r.tokens.contextUsed, window: r.tokens.contextWindow } } : {}),
  };
  const summary = (text: string) => clampSummary(redactText(text + denied, secrets), null);
  switch (r.status) {
    case 'completed':
      return { ...base, status: 'succeeded', reason: 'exit', summary: summary(answer) };
    case 'canceled':
      return { ...base, status: 'canceled', reason: 'canceled', summary: summary('canceled: the codex turn was interrupted') };
    case 'timeout':
      return {
        ...base,
        status: 'failed',
        reason: 'timeout',
        summary: summary(
          `codex timed out after ${request.timeoutMs} ms; the turn was interrupted${r.lastAgentMessage ? `\n--- last answer ---\n${r.lastAgentMessage}` : ''}`,
        ),
      };
    case 'failed':
    case 'interrupted':
    case 'crashed': {
      const text = `codex turn failed: ${r.error ?? r.status}`;
      const found = r.usageLimited
        ? (parseUsageLimit(`usage limit reached: ${r.error ?? ''}`, now) ?? { message: r.error ?? 'usage limit', resetsAt: null })
        : null;
      const limit = found ? { ...found, message: redactText(r.error ?? found.message, secrets) } : null;
      return { ...base, status: 'failed', reason: 'runtime_error', summary: summary(text), ...(limit ? { usageLimit: limit } : {}) };
    }
  }
}
