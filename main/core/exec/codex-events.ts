import { StringDecoder } from 'node:string_decoder';
import { z } from 'zod';
import type { RuntimeReport } from './runtime-report';

/**
 * `codex exec --json` prints one event per line. Read as the bytes arrive, so the turn's
 * answer survives however much other output codex produces (the raw capture is capped).
 *
 * - `thread.started {thread_id}`          → session id
 * - `item.completed {item: agent_message}` → the last one is the answer
 * - `item.completed {item: error}`        → a note (e.g. unknown model metadata), not a failure
 * - `turn.completed {usage}`              → tokens (summed if there were several turns)
 * - `turn.failed {error}`                 → failed
 * - `error {message}`                     → failed, unless a `turn.completed` follows it
 *                                            (a retry that recovered)
 */
const UsageSchema = z.looseObject({
  input_tokens: z.number().nonnegative().optional(),
  output_tokens: z.number().nonnegative().optional(),
});

const CodexEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('thread.started'), thread_id: z.string().min(1) }),
  z.looseObject({
    type: z.literal('item.completed'),
    item: z.looseObject({ type: z.string(), text: z.string().optional(), message: z.string().optional() }),
  }),
  z.looseObject({ type: z.literal('turn.completed'), usage: UsageSchema.optional() }),
  z.looseObject({ type: z.literal('turn.failed'), error: z.looseObject({ message: z.string().optional() }).optional() }),
  z.looseObject({ type: z.literal('error'), message: z.string().optional() }),
]);

const KNOWN_TYPES = new Set(['thread.started', 'item.completed', 'turn.completed', 'turn.failed', 'error']);

export class CodexEventReader {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  private overlong = false;
  private threadId: string | undefined;
  private lastMessage: string | null = null;
  private turnCompleted = false;
  private failure: string | null = null;
  private pendingError: string | null = null;
  private usage: { input_tokens: number; output_tokens: number } | undefined;
  /** Lines that looked like events but did not match the schema. */
  malformed = 0;

  /** @param maxLineChars longer lines are skipped (never buffered whole). */
  constructor(private readonly maxLineChars: number) {}

  push(chunk: Buffer): void {
    const text = this.decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.endLine(text.slice(start, nl));
      start = nl + 1;
    }
    this.append(text.slice(start));
  }

  end(): RuntimeReport {
    this.endLine(this.decoder.end());
    const error = this.failure ?? this.pendingError;
    return {
      ok: error !== null ? false : this.turnCompleted ? true : null,
      text: error !== null ? `codex turn failed: ${error}` : this.lastMessage,
      sessionId: this.threadId,
      usage: this.usage,
    };
  }

  private append(piece: string): void {
    if (this.overlong) return;
    if (this.partial.length + piece.length > this.maxLineChars) {
      this.overlong = true;
      this.partial = '';
      return;
    }
    this.partial += piece;
  }

  private endLine(piece: string): void {
    this.append(piece);
    const line = this.partial.trim();
    const skipped = this.overlong;
    this.partial = '';
    this.overlong = false;
    if (skipped || !line.startsWith('{')) return;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return; // codex prints the odd plain log line
    }
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
      case 'item.completed':
        // `error` items are notes (unknown model metadata and the like), not failures.
        if (event.item.type === 'agent_message' && event.item.text !== undefined) this.lastMessage = event.item.text;
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
        break;
      case 'error':
        this.pendingError = event.message ?? 'error';
        break;
    }
  }
}
