import { errorText } from '../../../../shared/errors';
import type { RateLimitReading } from '../../../../shared/usage';
import type { TranscriptLine } from '../../../../shared/transcript';
import type { AppServerPool } from '../../exec/codex-app-server/server-pool';
import { appServerTranscript } from '../../exec/codex-app-server/transcript';
import { TranscriptWriter } from '../../exec/transcript-writer';
import type { AppServerSpawnSpec } from '../../exec/codex-app-server/spawn';
import { runAppServerTurn, type AppServerTurnResult, type TurnTokens } from '../../exec/codex-app-server/turn-runner';
import type { Clock, Logger } from '../../base/ports';
import { sechroomToolSet } from './closeout-tools';
import type { SechroomTurnRunner, TurnDetail, TurnOutcome, TurnRequest, TurnUsage } from './turn-runner';

export interface AppServerTurnsDeps {
  pool: AppServerPool;
  /**
   * How this instance's `codex app-server` is started (`<codexBin> app-server`, cwd = the
   * instance root). The host passes the isolated launch (clean environment, private
   * CODEX_HOME, the sandbox wrapper); it is the same for every turn, so the pool keeps one
   * live server per instance.
   */
  server(): Promise<AppServerSpawnSpec>;
  clock: Clock;
  log: Logger;
  /** The account's rate-limit windows, as codex reports them (for the usage account and admission). */
  onRateLimits?(reading: RateLimitReading): void;
  /** After every turn: its tokens and whether it ran, for the usage account. */
  onTurnEnded?(taskId: string, result: AppServerTurnResult): void;
  /** Each redacted line of the turn's live transcript, by the lease it runs under. */
  onTranscript?(leaseId: string, line: TranscriptLine): void;
  knownSecrets?(): readonly string[];
}

/**
 * A Sechroom turn on the codex app-server: the card's instructions as
 * developer instructions, "Begin the task now." as the input, `sechroom_closeout` and
 * `sechroom_lifecycle_signal` as dynamic tools, the closeout nudge waited for by its own
 * turn id, a timeout resumed once on its thread, a cancel sent as turn/interrupt. Thread
 * items become the telemetry details the seed sends (B8 `mapThreadItem`).
 */
export class AppServerTurns implements SechroomTurnRunner {
  constructor(private readonly deps: AppServerTurnsDeps) {}

  async run(request: TurnRequest): Promise<TurnOutcome> {
    const { pool, clock } = this.deps;
    const log = this.deps.log.child(`turn:${request.taskId}`);
    let connection;
    try {
      const spec = await this.deps.server();
      const spawned = pool.spawned;
      connection = await pool.acquire(spec);
      if (pool.spawned > spawned) this.deps.log.info(`codex app-server up (${spec.binary ?? spec.command})`);
    } catch (error) {
      return { status: 'crashed', reason: `could not start codex app-server: ${errorText(error)}` };
    }
    const { onTranscript } = this.deps;
    const transcript = onTranscript ? new TranscriptWriter((line) => onTranscript(request.leaseId, line), this.deps.knownSecrets?.() ?? []) : null;
    const result = await runAppServerTurn({
      connection,
      cwd: request.cwd,
      prompt: request.input,
      developerInstructions: request.instructions,
      sandbox: request.sandbox,
      model: request.model,
      tools: sechroomToolSet(request.tools),
      timeoutMs: request.turnTimeoutMs,
      resumeTimeoutMs: request.resumeTurnTimeoutMs,
      signal: request.signal,
      clock,
      log,
      kill: () => pool.kill(connection),
      onItem: (item) => {
        const detail = itemDetail(item);
        if (detail) request.onDetail(detail);
      },
      onDeclined: (method) => request.onDetail({ kind: 'Approval', text: JSON.stringify({ method, type: method, id: null }), approvalState: 'denied' }),
      onTokens: (tokens) => request.onUsage?.(usageOf(tokens)),
      ...(this.deps.onRateLimits ? { onRateLimits: this.deps.onRateLimits } : {}),
      ...(transcript ? { onNotification: (method: string, params: unknown) => appServerTranscript(method, params, transcript) } : {}),
    });
    transcript?.end();
    this.deps.onTurnEnded?.(request.taskId, result);
    return outcomeOf(result);
  }
}

/** Seed B8 `mapThreadItem`: messages are Raw, commands, file changes and compactions Parsed; the rest is not sent. */
function itemDetail(item: { type: string; id: string | null }): TurnDetail | null {
  const text = JSON.stringify({ method: 'item/completed', type: item.type, id: item.id });
  if (/agentMessage|userMessage/i.test(item.type)) return { kind: 'Raw', text };
  if (/commandExecution|fileChange|contextCompaction/i.test(item.type)) return { kind: 'Parsed', text };
  return null;
}

function usageOf(tokens: TurnTokens): TurnUsage {
  return {
    tokensIn: tokens.inputTokens,
    tokensOut: tokens.outputTokens,
    contextUsed: tokens.contextUsed,
    contextWindow: tokens.contextWindow ?? 0,
    modelId: tokens.modelId,
  };
}

function outcomeOf(r: AppServerTurnResult): TurnOutcome {
  const usage = r.tokens ? usageOf(r.tokens) : null;
  const turnId = r.turnIds[0] ?? null;
  const lastAgentMessage = r.lastAgentMessage ?? '';
  switch (r.status) {
    case 'completed':
      return { status: 'completed', lastAgentMessage, usage, turnId };
    case 'timeout':
      return { status: 'timeout', reason: 'turn timed out', lastAgentMessage, usage, turnId };
    case 'canceled':
      return { status: 'canceled', reason: 'the codex turn was interrupted (turn/interrupt)' };
    case 'interrupted':
    case 'failed':
    case 'crashed':
      // A turn that ended badly but did close out still counts (the closeout decides the verdict).
      if (r.closeout !== undefined && r.status !== 'crashed') return { status: 'completed', lastAgentMessage, usage, turnId };
      return { status: 'crashed', reason: r.error ?? `codex turn ${r.status}` };
  }
}
