import { errorText } from '../../../../shared/errors';
import type { Clock } from '../../base/ports';
import { dynamicToolSpecs } from './dynamic-tools';
import { isUsageLimitError, ThreadStartResultSchema, TurnStartResultSchema } from './protocol';
import { TurnObserver } from './turn-observer';
import type { AppServerTurnResult, AppServerTurnSpec, AppServerTurnStatus } from './turn-types';

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
export type { AppServerTurnResult, AppServerTurnSpec, TurnTokens } from './turn-types';

type Wait = 'completed' | 'timeout' | 'canceled' | 'exited';

const DEFAULT_NUDGE_MS = 60_000;
const DEFAULT_GRACE_MS = 5_000;
const DEFAULT_REQUEST_MS = 60_000;
export const RESUME_PROMPT = 'Resume the interrupted work from this saved thread and finish the task.';

export async function runAppServerTurn(spec: AppServerTurnSpec): Promise<AppServerTurnResult> {
  return new AppServerTurn(spec).run();
}

class AppServerTurn {
  private readonly turnIds: string[] = [];
  private exitReason: string | null = null;
  private killed = false;
  /** The turn whose end decides the status (not the closeout nudge after it). */
  private workTurnId: string | null = null;
  private readonly requestMs: number;
  private readonly seen: TurnObserver;

  constructor(private readonly spec: AppServerTurnSpec) {
    this.requestMs = spec.requestTimeoutMs ?? DEFAULT_REQUEST_MS;
    this.seen = new TurnObserver(spec);
  }

  async run(): Promise<AppServerTurnResult> {
    const { spec } = this;
    const unsubscribe = spec.connection.subscribe({
      notification: (method, params) => this.seen.notification(method, params),
      request: (request) => this.seen.request(request),
      exit: (reason) => {
        this.exitReason = reason;
        this.seen.wake?.();
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
    this.seen.threadId = started.thread.id;
    this.seen.modelId = started.model ?? null;
    spec.log.info('codex thread started', { threadId: this.seen.threadId, model: this.seen.modelId });

    let ended = await this.turn(spec.prompt, spec.timeoutMs);
    let resumed = false;
    if (ended === 'timeout' && this.substantialWork()) {
      spec.onLine?.(`turn timed out after ${spec.timeoutMs} ms with work done; resuming the thread`);
      spec.log.info(`fresh turn timed out after ${spec.timeoutMs}ms with substantial work — resuming thread ${this.seen.threadId}`);
      if ((await this.interrupt()) === 'completed') {
        try {
          await spec.connection.request('thread/resume', { threadId: this.seen.threadId }, this.requestMs);
          resumed = true;
          ended = await this.turn(RESUME_PROMPT, spec.resumeTimeoutMs ?? spec.timeoutMs);
        } catch (error) {
          if (spec.signal.aborted) throw error;
          // The seed's words (B8 step 3).
          return { ...this.result('crashed', `thread resume failed: ${errorText(error)}`), resumed };
        }
      } else {
        ended = 'timeout';
      }
    }
    const outcome = await this.settle(ended);
    if (outcome !== null) return { ...outcome, resumed };
    this.workTurnId = this.turnIds[this.turnIds.length - 1] ?? null;

    const last = this.seen.completed.get(this.turnIds[this.turnIds.length - 1] ?? '');
    const status = last?.turn.status;
    if (status === 'completed' && spec.tools?.closeout && this.seen.closeout === undefined) {
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
        { threadId: this.seen.threadId, input: [{ type: 'text', text, text_elements: [] }], ...(spec.model ? { model: spec.model } : {}) },
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
    if (!turnId || this.seen.completed.has(turnId)) return 'completed';
    if (!spec.connection.alive) return 'exited';
    spec.log.info('interrupting the codex turn', { threadId: this.seen.threadId, turnId });
    spec.connection
      .request('turn/interrupt', { threadId: this.seen.threadId, turnId }, this.requestMs)
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
        this.seen.wake = null;
        resolve(how);
      };
      const onAbort = () => finish('canceled');
      const check = () => {
        if (this.seen.completed.has(turnId)) finish('completed');
        else if (this.exitReason !== null) finish('exited');
      };
      this.seen.wake = check;
      timer = clock.setTimeout(() => finish('timeout'), ms);
      if (abortable) {
        signal.addEventListener('abort', onAbort, { once: true });
        if (signal.aborted) return onAbort();
      }
      check();
    });
  }

  private substantialWork(): boolean {
    return (this.seen.tokens?.outputTokens ?? 0) > 0 || this.seen.items > 0 || this.seen.lastAgentMessage !== null;
  }

  private fromTurn(): AppServerTurnResult {
    // A nudge turn says nothing about the work turn before it: the work turn decides.
    const work = this.seen.completed.get(this.workTurnId ?? '');
    const status = work?.turn.status;
    const error = work?.turn.error ?? null;
    if (status === 'completed') return this.result('completed', null);
    if (status === 'interrupted') return this.result('interrupted', 'the turn was interrupted');
    const info = error?.codexErrorInfo ?? this.seen.lastError?.info;
    return { ...this.result('failed', error?.message ?? this.seen.lastError?.message ?? 'the turn failed'), usageLimited: isUsageLimitError(info) };
  }

  private result(status: AppServerTurnStatus, error: string | null): AppServerTurnResult {
    return {
      status,
      threadId: this.seen.threadId,
      turnIds: [...this.turnIds],
      lastAgentMessage: this.seen.lastAgentMessage,
      error,
      usageLimited: false,
      tokens: this.seen.tokens,
      closeout: this.seen.closeout,
      deniedRequests: [...this.seen.denied],
      resumed: false,
      nudged: false,
      killed: this.killed,
    };
  }
}
