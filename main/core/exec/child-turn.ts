import { UsageSchema } from '../../../shared/protocol';
import { redactText } from '../../../shared/redact';
import { errorText } from '../../../shared/errors';
import type { Clock, Logger } from '../base/ports';
import type { ExecutionOutcome, ExecutionRequest } from './executor-port';
import { commandFor } from './child-launch';
import { withLifeline } from './lifeline';
import { runChild, type ChildResult } from './child-run';
import type { WarmLauncher } from './warm-launcher';
import { sandboxKey, startSandbox, type SpareSandbox } from './warm-sandbox';
import type { IsolatedCommand } from './isolation/spec';
import type { PickupTrace } from './pickup-trace';
import { parseUsageLimit } from './limit-messages';
import { composeSummary, decideStatus } from './outcome';
import { isolateTurn, type PreparedTurn, type TurnContext } from './isolation';
import { Throttle } from './output-capture';
import { TurnOutput } from './turn-output';
import type { Invocation } from './runtime-args';

/**
 * One turn run as a child process (claude, or codex exec): its output captured and sent to
 * the caller at a bounded rate, the command wrapped in the turn's sandbox and the
 * parent-death lifeline, the turn's egress proxy up while it runs, and the ended process
 * read into the turn's outcome (status, summary, usage, a usage limit it hit).
 */
export interface ChildTurnDeps {
  clock: Clock;
  log: Logger;
  killGraceMs: number;
  /** Whether runtimes start through the parent-death watch. */
  lifeline: boolean;
  maxOutputBytes: number;
  tailBytes: number;
  warm: WarmLauncher;
}

export interface ChildTurn {
  request: ExecutionRequest;
  context: TurnContext;
  prepared: PreparedTurn;
  invocation: Invocation & { cwd: string };
  started: number;
  markSpawned: () => void;
  /** A sandbox started ahead in this turn's folder (warm-sandbox.ts): used when its command line is this turn's. */
  spare?: SpareSandbox | null;
  /** Phase times to the runtime's start (RUNNER_TRAY_TRACE_PICKUP). */
  trace?: PickupTrace;
}

const OUTPUT_EMIT_INTERVAL_MS = 250;

/** The turn's outcome; null when the control plane refused the start before anything ran. */
export async function runChildTurn(deps: ChildTurnDeps, turn: ChildTurn): Promise<ExecutionOutcome | null> {
  const { request, invocation } = turn;
  const secrets = request.knownSecrets;
  const output = new TurnOutput(invocation.outputMode, {
    maxOutputBytes: deps.maxOutputBytes,
    tailBytes: deps.tailBytes,
    knownSecrets: secrets,
    onTranscript: request.onTranscript,
  });
  const onOutput = request.onOutput;
  const throttle = new Throttle(deps.clock, OUTPUT_EMIT_INTERVAL_MS, () => {
    if (!onOutput) return;
    try {
      onOutput(output.tail.render(secrets));
    } catch (error) {
      deps.log.warn('onOutput callback threw', { error: errorText(error) });
    }
  });
  const log = deps.log.child(`turn:${request.unitId}`);
  const child = await launch(deps, turn, log, {
    onStdout: (chunk) => {
      output.onStdout(chunk);
      if (onOutput) throttle.poke();
      return request.transcriptBacklog?.() ?? undefined;
    },
    onStderr: (chunk) => {
      output.onStderr(chunk);
      if (onOutput) throttle.poke();
      return request.transcriptBacklog?.() ?? undefined;
    },
    done: () => {
      throttle.flush();
      throttle.cancel();
    },
  });
  return child && childOutcome(deps, request, output, child, turn.started, log);
}

interface OutputSinks {
  /** A promise back: the output is paused until it settles (the transcript's disk is behind). */
  onStdout(chunk: Buffer): void | Promise<void>;
  onStderr(chunk: Buffer): void | Promise<void>;
  /** Called once the process has ended (or was never started after the sandbox was made). */
  done(): void;
}

/** The turn's command in its sandbox (a spare sandbox is started from the same, see warm-sandbox.ts). */
export async function sandboxedTurn(turn: Pick<ChildTurn, 'request' | 'context' | 'prepared' | 'invocation'>, log: Logger): Promise<IsolatedCommand> {
  const { request, invocation, prepared } = turn;
  const inner = commandFor(request.binary, invocation.args);
  return isolateTurn(turn.context, prepared, {
    command: inner.command,
    args: inner.args,
    cwd: invocation.cwd,
    binary: request.binary,
    ownEnv: [invocation.env, inner.env],
    knownSecrets: request.knownSecrets,
    egressUrls: request.mcp ? [request.mcp.serverUrl] : [],
    log: log.child('egress'),
    handoff: true,
  });
}

/** Sandbox, lifeline, the start's acceptance, the egress proxy, and the process run to its end. */
async function launch(deps: ChildTurnDeps, turn: ChildTurn, log: Logger, sinks: OutputSinks): Promise<ChildResult | null> {
  const { request, invocation, prepared } = turn;
  const sandboxed = await sandboxedTurn(turn, log);
  turn.trace?.mark('sandboxedCommandMs');
  // A spare started with this very command line and allowlist takes the command on fd 3.
  const spare = sandboxed.handoff && turn.spare && turn.spare.key === sandboxKey(sandboxed) ? turn.spare : null;
  // The outermost layer, around the sandbox: whatever runs the runtime is stopped if this host dies.
  // bubblewrap watches for that itself (--die-with-parent with its own pid namespace: the
  // whole namespace goes with it), so there the Node launcher's ~35 ms start is not paid.
  const watch = deps.lifeline && sandboxed.level !== 'bubblewrap';
  // A launcher started ahead takes the command over its lifeline; without one, a launcher is started for it.
  const warm = watch ? deps.warm.take() : null;
  const isolated = watch && !warm ? { ...sandboxed, ...withLifeline({ command: sandboxed.command, args: sandboxed.args, env: sandboxed.env }) } : sandboxed;
  // Started before the control plane took the unit only where it dies with this host (a
  // crash before the running journal is down leaves nothing running), waiting for its prompt.
  const early = request.startAccepted !== undefined && deps.lifeline && invocation.stdin !== undefined;
  if (request.startAccepted && !early && !(await request.startAccepted)) {
    await sandboxed.egress?.discard();
    return null;
  }

  // The turn's way out (an allowlist), up before the sandbox that binds its socket, down when the process has ended.
  const proxy = spare ? spare.proxy : sandboxed.egress ? await sandboxed.egress.start() : null;
  if (spare) spare.used = true;
  turn.trace?.mark('egressProxyMs');
  // With a handoff the sandbox is started (or was, ahead) waiting for its command on fd 3.
  const waiting = spare ? spare.child : sandboxed.handoff ? startSandbox(isolated) : null;
  try {
    return await runChild({
      command: isolated.command,
      args: isolated.args,
      cwd: isolated.cwd,
      env: isolated.env,
      stdin: invocation.stdin,
      ...(warm ? { warm } : {}),
      ...(waiting && sandboxed.handoff ? { warm: waiting, handoff: sandboxed.handoff, lifeline: true } : { lifeline: watch }),
      ...(early ? { stdinWhen: request.startAccepted } : {}),
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      killGraceMs: deps.killGraceMs,
      clock: deps.clock,
      log,
      onSpawn: (pid) => {
        turn.trace?.mark('spawnToStartedMs');
        turn.trace?.done(log);
        turn.markSpawned();
        // The next turn outside bubblewrap finds its launcher started.
        if (watch) deps.warm.fill();
        log.info('runtime started', {
          runtime: request.runtime,
          kind: request.kind,
          pid,
          resumed: request.resumeSessionId !== null,
          isolation: isolated.level,
          startedAhead: spare !== null,
          ownConfig: prepared.ownConfig,
        });
        request.onSpawn?.(pid);
      },
      onStdout: sinks.onStdout,
      onStderr: sinks.onStderr,
    });
  } finally {
    await proxy?.close();
    sinks.done();
    if (watch) deps.warm.fill(); // a spare this turn took without starting its runtime is replaced too
  }
}

/** The ended process and its output, read into the turn's outcome. */
function childOutcome(deps: ChildTurnDeps, request: ExecutionRequest, output: TurnOutput, child: ChildResult, started: number, log: Logger): ExecutionOutcome {
  const secrets = request.knownSecrets;
  const { stdout, stderr } = output;
  const report = output.report();
  if (report.deniedTools && report.deniedTools.length > 0) {
    log.warn('the runtime was refused tools it asked for', { tools: [...new Set(report.deniedTools)] });
  }
  const { status, reason } = decideStatus(child, report);
  const outputTail = output.tail.render(secrets);
  const truncated = output.truncated;
  const summary = composeSummary(
    {
      runtime: request.runtime,
      binary: request.binary,
      timeoutMs: request.timeoutMs,
      child,
      report,
      stdout: output.stdoutIsEvents ? '' : stdout.text(),
      stderr: stderr.text(),
      stderrIsNoise: output.stderrIsNoise,
      tail: outputTail,
      truncatedAtBytes: truncated ? deps.maxOutputBytes : null,
      knownSecrets: secrets,
    },
    reason,
  );
  const usage = report.usage ? UsageSchema.safeParse(report.usage).data : undefined;
  const usageLimit =
    status === 'failed' && reason !== 'timeout'
      ? parseUsageLimit(report.text ?? `${stdout.text().slice(-4_000)}\n${stderr.text().slice(-4_000)}`, deps.clock.now())
      : null;
  const outcome: ExecutionOutcome = {
    status,
    reason,
    summary,
    exitCode: child.exitCode,
    ...(usage ? { usage } : {}),
    ...(report.sessionId ? { sessionId: report.sessionId } : {}),
    ...(usageLimit ? { usageLimit: { ...usageLimit, message: redactText(usageLimit.message, secrets) } } : {}),
    outputTail,
    durationMs: deps.clock.now() - started,
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
