import { z } from 'zod';
import { JsonEventReader } from './json-lines';
import type { RuntimeReport } from './runtime-report';
import type { TranscriptSink } from './transcript-writer';

/**
 * `codex exec --json` prints one event per line. Read as the bytes arrive, so the turn's
 * answer survives however much other output codex produces (the raw capture is capped).
 *
 * - `thread.started {thread_id}`          → session id
 * - `item.completed {item: agent_message}` → the last one is the answer
 * - `item.completed {item: error}`        → a note (e.g. unknown model metadata), not a failure
 * - `item.started` / `item.completed`      → the transcript (messages, reasoning, commands
 *                                            with exit codes, file changes, tool calls)
 * - `turn.completed {usage}`              → tokens (summed if there were several turns)
 * - `turn.failed {error}`                 → failed
 * - `error {message}`                     → failed, unless a `turn.completed` follows it
 *                                            (a retry that recovered)
 */
const UsageSchema = z.looseObject({
  input_tokens: z.number().nonnegative().optional(),
  output_tokens: z.number().nonnegative().optional(),
});

const ItemSchema = z.looseObject({ type: z.string(), text: z.string().optional(), message: z.string().optional() });

/** What the transcript reads of an item; an item that does not match is left out of it, never out of the report. */
const TranscriptItemSchema = z.looseObject({
  type: z.string(),
  text: z.string().optional(),
  message: z.string().optional(),
  command: z.string().optional(),
  aggregated_output: z.string().nullable().optional(),
  exit_code: z.number().int().nullable().optional(),
  changes: z.array(z.looseObject({ path: z.string(), kind: z.string().optional() })).optional(),
  server: z.string().optional(),
  tool: z.string().optional(),
});

const CodexEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('thread.started'), thread_id: z.string().min(1) }),
  z.looseObject({ type: z.literal('item.started'), item: ItemSchema }),
  z.looseObject({ type: z.literal('item.completed'), item: ItemSchema }),
  z.looseObject({ type: z.literal('turn.completed'), usage: UsageSchema.optional() }),
  z.looseObject({ type: z.literal('turn.failed'), error: z.looseObject({ message: z.string().optional() }).optional() }),
  z.looseObject({ type: z.literal('error'), message: z.string().optional() }),
]);

const KNOWN_TYPES = new Set(['thread.started', 'item.started', 'item.completed', 'turn.completed', 'turn.failed', 'error']);

export class CodexEventReader extends JsonEventReader {
  private threadId: string | undefined;
  private lastMessage: string | null = null;
  private turnCompleted = false;
  private failure: string | null = null;
  private pendingError: string | null = null;
  private usage: { input_tokens: number; output_tokens: number } | undefined;

  end(): RuntimeReport {
    this.endLines();
    const error = this.failure ?? this.pendingError;
    return {
      ok: error !== null ? false : this.turnCompleted ? true : null,
      text: error !== null ? `codex turn failed: ${error}` : this.lastMessage,
      sessionId: this.threadId,
      usage: this.usage,
    };
  }

  protected event(json: unknown): void {
    const type = (json as { type?: unknown }).type;
    if (typeof type !== 'string' || !KNOWN_TYPES.has(type)) return;
    const parsed = CodexEventSchema.safeParse(json);
    if (!parsed.success) {
      this.malformed++;
      return;
    }
    this.apply(parsed.data);
  }

  private apply(event: z.infer<typeof CodexEventSchema>): void {
    switch (event.type) {
      case 'thread.started':
        this.threadId = event.thread_id;
        break;
      case 'item.started': {
        const item = TranscriptItemSchema.safeParse(event.item);
        if (item.success && item.data.type === 'command_execution' && item.data.command) this.transcript.line('command', `$ ${item.data.command}`);
        break;
      }
      case 'item.completed':
        // `error` items are notes (unknown model metadata and the like), not failures.
        if (event.item.type === 'agent_message' && event.item.text !== undefined) this.lastMessage = event.item.text;
        codexItemLines(event.item, this.transcript);
        break;
      case 'turn.completed': {
        this.turnCompleted = true;
        this.pendingError = null;
        const u = event.usage;
        if (u) {
          this.usage = {
            input_tokens: (this.usage?.input_tokens ?? 0) + Math.round(u.input_tokens ?? 0),
            output_tokens: (this.usage?.output_tokens ?? 0) + Math.round(u.output_tokens ?? 0),
          };
        }
        break;
      }
      case 'turn.failed':
        this.failure = event.error?.message ?? 'turn failed';
        this.transcript.line('note', `turn failed: ${this.failure}`);
        break;
      case 'error':
        this.pendingError = event.message ?? 'error';
        this.transcript.line('note', `error: ${this.pendingError}`);
        break;
    }
  }
}

/** A completed item as transcript lines: the answer, the reasoning, a command's output and exit code, the files changed. */
function codexItemLines(raw: z.infer<typeof ItemSchema>, out: TranscriptSink): void {
  const parsed = TranscriptItemSchema.safeParse(raw);
  if (!parsed.success) return;
  const item = parsed.data;
  switch (item.type) {
    case 'agent_message':
      if (item.text) out.line('text', item.text);
      return;
    case 'reasoning':
      if (item.text) out.line('reasoning', item.text);
      return;
    case 'command_execution':
      if (item.aggregated_output) out.line('output', item.aggregated_output);
      out.line('command', item.exit_code === null || item.exit_code === undefined ? 'ended' : `exit ${item.exit_code}`, item.exit_code ?? null);
      return;
    case 'file_change':
      for (const change of item.changes ?? []) out.line('file', `${change.kind ?? 'change'} ${change.path}`);
      return;
    case 'mcp_tool_call':
      out.line('tool', `${item.server ?? 'mcp'}.${item.tool ?? 'tool'}`);
      return;
    case 'error':
      if (item.message) out.line('note', item.message);
      return;
    default:
      return;
  }
}
