import { errorText } from '../../../../shared/errors';
import type { RateLimitReading } from '../../../../shared/usage';
import type { Clock, Logger } from '../../base/ports';
import type { AppServerConnection, ServerRequest } from './connection';
import { dynamicToolSpecs, toolResponse, type DynamicToolSet } from './dynamic-tools';
import {
  APPROVAL_REPLIES,
  DynamicToolCallSchema,
  ErrorNotificationSchema,
  isUsageLimitError,
  ItemCompletedSchema,
  RateLimitsUpdatedSchema,
  ThreadStartResultSchema,
  TokenUsageUpdatedSchema,
  TurnEventSchema,
  TurnStartResultSchema,
  type SandboxMode,
  type TurnEvent,
} from './protocol';
import { readingFromWire } from './rate-limits';

/**
 * One unit on a codex app-server: thread/start (cwd, approval policy never, the sandbox,
 * developer instructions, dynamic tools, per-unit config such as the MCP server), then
 * turn/start, and the turn followed to its end by its own ids.
 *
 * - Cancel: turn/interrupt with the thread and turn ids; if the turn has not ended within
 *   the grace period, the server's process tree is stopped.
 * - Timeout: a turn that did substantial work (tokens, items, an answer) is interrupted and
 *   continued once with thread/resume and a new turn; otherwise it is interrupted (never
 *   left running inside the server, B15.8) and reported as a timeout.
 * - A closeout tool that was not called: one nudge turn, waited for by its own turn id
 *   (the seed raced an already settled promise, B15.7).
 * - Approval and elicitation requests are declined and listed in the turn's output.
 */
export interface TurnTokens {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** Tokens in the model's context at the last request. */
  contextUsed: number;
  contextWindow: number | null;
  modelId: string | null;
}

export interface AppServerTurnSpec {
  connection: AppServerConnection;
  cwd: string;
  prompt: string;
  developerInstructions: string | null;
  sandbox: SandboxMode;
  model?: string | null;
  /** Per-thread config overrides (dotted keys), e.g. the control plane's MCP server. */
  config?: Record<string, unknown> | undefined;
  tools?: DynamicToolSet;
  timeoutMs: number;
  /** The bound of the one resumed turn after a timeout (default: timeoutMs). */
  resumeTimeoutMs?: number;
  /** The bound of the closeout nudge turn (default 60 s). */
  nudgeTimeoutMs?: number;
  /** From turn/interrupt to stopping the process tree (default 5 s). */
  interruptGraceMs?: number;
  /** Bound of each request (thread/start, turn/start, …; default 60 s). */
  requestTimeoutMs?: number;
  signal: AbortSignal;
  clock: Clock;
  log: Logger;
  /** Stops the server's process tree (cancel or interrupt that did not take). */
  kill(): Promise<void>;
  onLine?(line: string): void;
  /** Every notification of this turn's thread, as it arrives (the live transcript). */
  onNotification?(method: string, params: unknown): void;
  /** Every completed thread item but the user's own input (a connector's telemetry details). */
  onItem?(item: { type: string; id: string | null }): void;
  /** An approval or elicitation request, declined (unattended run). */
  onDeclined?(method: string): void;
  onTokens?(tokens: TurnTokens): void;
  onRateLimits?(reading: RateLimitReading): void;
}

export type AppServerTurnStatus = 'completed' | 'failed' | 'interrupted' | 'timeout' | 'canceled' | 'crashed';

export interface AppServerTurnResult {
  status: AppServerTurnStatus;
  threadId: string | null;
  turnIds: string[];
  lastAgentMessage: string | null;
  error: string | null;
  /** The turn failed because the account's usage limit was reached. */
  usageLimited: boolean;
  tokens: TurnTokens | null;
  /** The closeout tool's arguments, when it was called. */
  closeout: unknown;
  deniedRequests: string[];
  resumed: boolean;
  nudged: boolean;
  /** Whether the server's process tree had to be stopped. */
  killed: boolean;
}

type Wait = 'completed' | 'timeout' | 'canceled' | 'exited';

const DEFAULT_NUDGE_MS = 60_000;
const DEFAULT_GRACE_MS = 5_000;
const DEFAULT_REQUEST_MS = 60_000;
export const RESUME_PROMPT = 'Resume the interrupted work from this saved thread and finish the task.';

export async function runAppServerTurn(spec: AppServerTurnSpec): Promise<AppServerTurnResult> {
  return new AppServerTurn(spec).run();
}

class AppServerTurn {
  private threadId: string | null = null;
  private readonly turnIds: string[] = [];
  private readonly completed = new Map<string, TurnEvent>();
  private wake: (() => void) | null = null;
  private exitReason: string | null = null;
  private lastAgentMessage: string | null = null;
  private items = 0;
  private tokens: TurnTokens | null = null;
  private modelId: string | null = null;
  private closeout: unknown = undefined;
  private readonly denied: string[] = [];
  private lastError: { message: string; info: unknown } | null = null;
  private killed = false;
  /** The turn whose end decides the status (not the closeout nudge after it). */
  private workTurnId: string | null = null;
  private readonly ignored = new Set<string>();
  private readonly requestMs: number;

  constructor(private readonly spec: AppServerTurnSpec) {
    this.requestMs = spec.requestTimeoutMs ?? DEFAULT_REQUEST_MS;
  }

  async run(): Promise<AppServerTurnResult> {
    const { spec } = this;
    const unsubscribe = spec.connection.subscribe({
      notification: (method, params) => this.notification(method, params),
      request: (request) => this.request(request),
      exit: (reason) => {
        this.exitReason = reason;
        this.wake?.();
      },
    });
    try {
      return await this.drive();
    } catch (error) {
      const message = errorText(error);
      return this.result(spec.signal.aborted ? 'canceled' : 'crashed', message);
    } finally {
      unsubscribe();
    }
  }

  private async drive(): Promise<AppServerTurnResult> {
    const { spec } = this;
    if (spec.signal.aborted) return this.result('canceled', null);
    const tools = spec.tools?.tools ?? [];
    const started = ThreadStartResultSchema.parse(
      await spec.connection.request(
        'thread/start',
        {
          cwd: spec.cwd,
          approvalPolicy: 'never',
          sandbox: spec.sandbox,
          ...(spec.model ? { model: spec.model } : {}),
          ...(spec.developerInstructions ? { developerInstructions: spec.developerInstructions } : {}),
          ...(spec.config ? { config: spec.config } : {}),
          ...(tools.length > 0 ? { dynamicTools: dynamicToolSpecs(tools) } : {}),
        },
        this.requestMs,
      ),
    );
    this.threadId = started.thread.id;
    this.modelId = started.model ?? null;
    spec.log.info('codex thread started', { threadId: this.threadId, model: this.modelId });

    let ended = await this.turn(spec.prompt, spec.timeoutMs);
    let resumed = false;
    if (ended === 'timeout' && this.substantialWork()) {
      spec.onLine?.(`turn timed out after ${spec.timeoutMs} ms with work done; resuming the thread`);
      spec.log.info('codex turn timed out with substantial work; resuming the thread', { threadId: this.threadId });
      if ((await this.interrupt()) === 'completed') {
        await spec.connection.request('thread/resume', { threadId: this.threadId }, this.requestMs);
        resumed = true;
        ended = await this.turn(RESUME_PROMPT, spec.resumeTimeoutMs ?? spec.timeoutMs);
      } else {
        ended = 'timeout';
      }
    }
    const outcome = await this.settle(ended);
    if (outcome !== null) return { ...outcome, resumed };
    this.workTurnId = this.turnIds[this.turnIds.length - 1] ?? null;

    const last = this.completed.get(this.turnIds[this.turnIds.length - 1] ?? '');
    const status = last?.turn.status;
    if (status === 'completed' && spec.tools?.closeout && this.closeout === undefined) {
      spec.onLine?.(`the turn ended without ${spec.tools.closeout.tool}; asking for it`);
      const nudged = await this.turn(spec.tools.closeout.nudge, spec.nudgeTimeoutMs ?? DEFAULT_NUDGE_MS);
      const after = await this.settle(nudged);
      if (after !== null) return { ...after, resumed, nudged: true };
      return { ...this.fromTurn(), resumed, nudged: true };
    }
    return { ...this.fromTurn(), resumed };
  }

  /** Starts a turn on the thread and waits for its end (or a stop). */
  private async turn(text: string, timeoutMs: number): Promise<Wait> {
    const { spec } = this;
    const answer = TurnStartResultSchema.parse(
      await spec.connection.request(
        'turn/start',
        { threadId: this.threadId, input: [{ type: 'text', text, text_elements: [] }], ...(spec.model ? { model: spec.model } : {}) },
        this.requestMs,
      ),
    );
    this.turnIds.push(answer.turn.id);
    return this.waitFor(answer.turn.id, timeoutMs, true);
  }

  /** Maps a stop (cancel, timeout, exit) to the result; null when the turn completed. */
  private async settle(ended: Wait): Promise<AppServerTurnResult | null> {
    if (ended === 'completed') return null;
    if (ended === 'exited') return this.result('crashed', `codex app-server exited (${this.exitReason ?? 'unknown'})`);
    const stopped = await this.interrupt();
    if (stopped !== 'completed') await this.killServer();
    if (ended === 'canceled') return this.result('canceled', null);
    return this.result('timeout', null);
  }

  /** turn/interrupt with the ids of the running turn; waits for it to end within the grace period. */
  private async interrupt(): Promise<Wait> {
    const { spec } = this;
    const turnId = this.turnIds[this.turnIds.length - 1];
    if (!turnId || this.completed.has(turnId)) return 'completed';
    if (!spec.connection.alive) return 'exited';
    spec.log.info('interrupting the codex turn', { threadId: this.threadId, turnId });
    spec.connection
      .request('turn/interrupt', { threadId: this.threadId, turnId }, this.requestMs)
      .catch((error: unknown) => spec.log.warn('turn/interrupt failed', { error: errorText(error) }));
    return this.waitFor(turnId, spec.interruptGraceMs ?? DEFAULT_GRACE_MS, false);
  }

  private async killServer(): Promise<void> {
    this.spec.log.warn('the codex turn did not stop after turn/interrupt; stopping the app-server process tree');
    this.killed = true;
    await this.spec.kill();
  }

  private waitFor(turnId: string, ms: number, abortable: boolean): Promise<Wait> {
    const { clock, signal } = this.spec;
    return new Promise<Wait>((resolve) => {
      let timer: ReturnType<Clock['setTimeout']> | null = null;
      const finish = (how: Wait) => {
        if (timer !== null) clock.clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wake = null;
        resolve(how);
      };
      const onAbort = () => finish('canceled');
      const check = () => {
        if (this.completed.has(turnId)) finish('completed');
        else if (this.exitReason !== null) finish('exited');
      };
      this.wake = check;
      timer = clock.setTimeout(() => finish('timeout'), ms);
      if (abortable) {
        signal.addEventListener('abort', onAbort, { once: true });
        if (signal.aborted) return onAbort();
      }
      check();
    });
  }

  private substantialWork(): boolean {
    return (this.tokens?.outputTokens ?? 0) > 0 || this.items > 0 || this.lastAgentMessage !== null;
  }

  private fromTurn(): AppServerTurnResult {
    // A nudge turn says nothing about the work turn before it: the work turn decides.
    const work = this.completed.get(this.workTurnId ?? '');
    const status = work?.turn.status;
    const error = work?.turn.error ?? null;
    if (status === 'completed') return this.result('completed', null);
    if (status === 'interrupted') return this.result('interrupted', 'the turn was interrupted');
    const info = error?.codexErrorInfo ?? this.lastError?.info;
    return { ...this.result('failed', error?.message ?? this.lastError?.message ?? 'the turn failed'), usageLimited: isUsageLimitError(info) };
  }

  private result(status: AppServerTurnStatus, error: string | null): AppServerTurnResult {
    return {
      status,
      threadId: this.threadId,
      turnIds: [...this.turnIds],
      lastAgentMessage: this.lastAgentMessage,
      error,
      usageLimited: false,
      tokens: this.tokens,
      closeout: this.closeout,
      deniedRequests: [...this.denied],
      resumed: false,
      nudged: false,
      killed: this.killed,
    };
  }

  private ours(threadId: unknown): boolean {
    return this.threadId !== null && threadId === this.threadId;
  }

  private notification(method: string, params: unknown): void {
    const { spec } = this;
    if (spec.onNotification && this.ours((params as { threadId?: unknown } | null)?.threadId)) spec.onNotification(method, params);
    switch (method) {
      case 'turn/completed': {
        const event = TurnEventSchema.safeParse(params);
        if (!event.success || !this.ours(event.data.threadId)) return;
        this.completed.set(event.data.turn.id, event.data);
        this.wake?.();
        return;
      }
      case 'item/completed': {
        const item = ItemCompletedSchema.safeParse(params);
        if (!item.success || !this.ours(item.data.threadId)) return;
        const { type, text } = item.data.item;
        if (type === 'userMessage') return;
        this.items++;
        spec.onItem?.({ type, id: item.data.item.id ?? null });
        if (type === 'agentMessage' && text !== undefined) {
          this.lastAgentMessage = text;
          spec.onLine?.(text);
        } else {
          spec.onLine?.(`[${type}]`);
        }
        return;
      }
      case 'thread/tokenUsage/updated': {
        const usage = TokenUsageUpdatedSchema.safeParse(params);
        if (!usage.success || !this.ours(usage.data.threadId)) return;
        const { total, last, modelContextWindow } = usage.data.tokenUsage;
        this.tokens = {
          inputTokens: Math.round(total.inputTokens),
          outputTokens: Math.round(total.outputTokens),
          cachedInputTokens: Math.round(total.cachedInputTokens ?? 0),
          contextUsed: Math.round(last.totalTokens),
          contextWindow: modelContextWindow ?? null,
          modelId: this.modelId,
        };
        spec.onTokens?.(this.tokens);
        return;
      }
      case 'account/rateLimits/updated': {
        const limits = RateLimitsUpdatedSchema.safeParse(params);
        if (!limits.success) return spec.log.debug('unreadable rate-limit notification; ignored');
        const reading = readingFromWire(limits.data.rateLimits);
        if (reading) spec.onRateLimits?.(reading);
        return;
      }
      case 'error': {
        const error = ErrorNotificationSchema.safeParse(params);
        if (!error.success || (error.data.threadId !== undefined && !this.ours(error.data.threadId))) return;
        this.lastError = { message: error.data.error.message, info: error.data.error.codexErrorInfo };
        spec.onLine?.(`error: ${error.data.error.message}${error.data.willRetry ? ' (codex retries)' : ''}`);
        return;
      }
      default:
        // Logged once per kind and turn: codex sends many notifications this runner has no use for.
        if (!this.ignored.has(method)) {
          this.ignored.add(method);
          spec.log.debug('codex notification not used by this runner; ignored', { method });
        }
        return;
    }
  }

  private request(request: ServerRequest): unknown {
    const { spec } = this;
    const threadId = (request.params as { threadId?: unknown } | null)?.threadId;
    if (threadId !== undefined && !this.ours(threadId)) return undefined;
    if (request.method === 'item/tool/call') {
      const call = DynamicToolCallSchema.safeParse(request.params);
      if (!call.success) return toolResponse({ text: 'unreadable tool call', success: false });
      return this.toolCall(call.data.tool, call.data.arguments);
    }
    if (Object.hasOwn(APPROVAL_REPLIES, request.method)) {
      this.denied.push(request.method);
      spec.onDeclined?.(request.method);
      spec.log.warn('codex asked for approval under approval policy never; declined (unattended run)', { method: request.method });
      spec.onLine?.(`approval requested (${request.method}) — declined: this runner runs unattended`);
      return APPROVAL_REPLIES[request.method];
    }
    return undefined;
  }

  private async toolCall(name: string, args: unknown): Promise<unknown> {
    const { spec } = this;
    const tool = spec.tools?.tools.find((t) => t.name === name);
    if (!tool) {
      spec.log.warn('codex called a dynamic tool this turn does not have', { tool: name });
      return toolResponse({ text: `unknown tool ${name}`, success: false });
    }
    spec.onLine?.(`[tool ${name}]`);
    try {
      const reply = await tool.handle(args);
      // A closeout the handler refused (bad arguments) does not count: the model is told why.
      if (spec.tools?.closeout?.tool === name && reply.success !== false) this.closeout = args ?? null;
      return toolResponse(reply);
    } catch (error) {
      return toolResponse({ text: errorText(error), success: false });
    }
  }
}
