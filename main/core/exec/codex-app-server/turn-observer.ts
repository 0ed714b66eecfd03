import { errorText } from '../../../../shared/errors';
import type { ServerRequest } from './connection';
import { toolResponse } from './dynamic-tools';
import {
  APPROVAL_REPLIES,
  DynamicToolCallSchema,
  ErrorNotificationSchema,
  ItemCompletedSchema,
  RateLimitsUpdatedSchema,
  TokenUsageUpdatedSchema,
  TurnEventSchema,
  type TurnEvent,
} from './protocol';
import { readingFromWire } from './rate-limits';
import type { AppServerTurnSpec, TurnTokens } from './turn-types';

/**
 * What a codex app-server tells about one unit's thread, gathered as it arrives: the ended
 * turns (waking whoever waits for one), the items, the last answer, the token counts, the
 * last error, and the answers to the server's own requests (dynamic tool calls run, the
 * closeout's arguments kept; approval and elicitation requests declined and listed).
 * Notifications and requests of other threads on the same server are left alone.
 */
export class TurnObserver {
  threadId: string | null = null;
  readonly completed = new Map<string, TurnEvent>();
  /** Called when a turn ends (or the server exits): the waiter checks what it waits for. */
  wake: (() => void) | null = null;
  lastAgentMessage: string | null = null;
  items = 0;
  tokens: TurnTokens | null = null;
  modelId: string | null = null;
  closeout: unknown = undefined;
  readonly denied: string[] = [];
  lastError: { message: string; info: unknown } | null = null;
  private readonly ignored = new Set<string>();

  constructor(private readonly spec: AppServerTurnSpec) {}

  ours(threadId: unknown): boolean {
    return this.threadId !== null && threadId === this.threadId;
  }

  notification(method: string, params: unknown): void {
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

  request(request: ServerRequest): unknown {
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
      spec.log.warn(`approval requested (${request.method}) under approvalPolicy=never — DENIED (unattended run)`);
      spec.onLine?.(`approval requested (${request.method}) — declined: this runner runs unattended`);
      return APPROVAL_REPLIES[request.method];
    }
    return undefined;
  }

  private async toolCall(name: string, args: unknown): Promise<unknown> {
    const { spec } = this;
    const tool = spec.tools?.tools.find((t) => t.name === name);
    if (!tool) {
      spec.log.warn(`unknown dynamic tool '${name}' — acknowledged empty`);
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
