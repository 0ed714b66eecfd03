import { z } from 'zod';
import { claudeJsonReport, claudeReport, ClaudeResultSchema, type ClaudeResult } from './claude-result';
import { JsonEventReader } from './json-lines';
import type { RuntimeReport } from './runtime-report';
import type { TranscriptSink } from './transcript-writer';

/**
 * `claude -p … --output-format stream-json --verbose` prints one event per line:
 * `system` (init: the model), `assistant` (a message of the model: text, thinking and
 * tool calls as content blocks), `user` (tool results), and last `result`, the same
 * object `--output-format json` prints, which stays the turn's outcome (claude-result.ts).
 * Read as the bytes arrive, so the result survives however much the turn printed.
 */
const ToolInputSchema = z.looseObject({
  command: z.string().optional(),
  file_path: z.string().optional(),
  path: z.string().optional(),
  description: z.string().optional(),
});

const TextBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });
const ThinkingBlockSchema = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const ToolUseBlockSchema = z.looseObject({ type: z.literal('tool_use'), name: z.string(), input: z.unknown().optional() });
const ToolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).optional(),
  is_error: z.boolean().optional(),
});

const MessageEventSchema = z.looseObject({
  type: z.enum(['assistant', 'user']),
  message: z.looseObject({ content: z.union([z.string(), z.array(z.unknown())]) }),
});
const SystemEventSchema = z.looseObject({ type: z.literal('system'), subtype: z.string().optional(), model: z.string().optional() });

/** Tools that edit files: their path goes to the transcript as a file change. */
const FILE_TOOLS = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit']);
/** How much of one tool result the transcript keeps (the model reads the rest, not the operator). */
const TOOL_RESULT_CHARS = 8_000;

export class ClaudeStreamReader extends JsonEventReader {
  private result: ClaudeResult | null = null;

  /** The result event's report; without one (an older claude, a stand-in), what `stdout` holds as JSON. */
  end(stdout: string): RuntimeReport {
    this.endLines();
    return this.result ? claudeReport(this.result) : claudeJsonReport(stdout);
  }

  protected event(json: unknown): void {
    const type = (json as { type?: unknown }).type;
    if (type === 'result') {
      const result = ClaudeResultSchema.safeParse(json);
      if (result.success) this.result = result.data;
      else this.malformed++;
      return;
    }
    if (type === 'system') {
      const system = SystemEventSchema.safeParse(json);
      if (system.success && system.data.subtype === 'init') this.transcript.line('note', `claude started${system.data.model ? ` (${system.data.model})` : ''}`);
      return;
    }
    if (type !== 'assistant' && type !== 'user') return;
    const message = MessageEventSchema.safeParse(json);
    if (!message.success) {
      this.malformed++;
      return;
    }
    const content = message.data.message.content;
    // A user message as a plain string is the prompt itself: not news to the operator.
    if (typeof content === 'string') return;
    for (const block of content) this.block(block);
  }

  /** One content block: each kind is checked on its own, so one odd block never hides the others. */
  private block(raw: unknown): void {
    const out = this.transcript;
    switch ((raw as { type?: unknown } | null)?.type) {
      case 'text': {
        const block = TextBlockSchema.safeParse(raw);
        if (block.success) out.line('text', block.data.text);
        return;
      }
      case 'thinking': {
        const block = ThinkingBlockSchema.safeParse(raw);
        if (block.success) out.line('reasoning', block.data.thinking);
        return;
      }
      case 'tool_use': {
        const block = ToolUseBlockSchema.safeParse(raw);
        if (block.success) toolUse(block.data.name, block.data.input, out);
        return;
      }
      case 'tool_result': {
        const block = ToolResultBlockSchema.safeParse(raw);
        if (block.success) toolResult(block.data, out);
        return;
      }
      default:
        return;
    }
  }
}

function toolResult(block: z.infer<typeof ToolResultBlockSchema>, out: TranscriptSink): void {
  const text = typeof block.content === 'string' ? block.content : (block.content ?? []).map((c) => c.text ?? '').join('\n');
  const kept = text.length > TOOL_RESULT_CHARS ? `${text.slice(0, TOOL_RESULT_CHARS)}\n… (${text.length - TOOL_RESULT_CHARS} more characters)` : text;
  if (kept.trim()) out.line('output', kept);
  if (block.is_error === true) out.line('note', 'the tool reported an error');
}

function toolUse(name: string, raw: unknown, out: TranscriptSink): void {
  const input = ToolInputSchema.safeParse(raw ?? {});
  const args = input.success ? input.data : {};
  if (name === 'Bash' && args.command) return out.line('command', `$ ${args.command}`);
  const file = args.file_path ?? args.path;
  if (FILE_TOOLS.has(name) && file) return out.line('file', `${name.toLowerCase()} ${file}`);
  const detail = args.description ?? file ?? compactJson(raw);
  out.line('tool', detail ? `${name} ${detail}` : name);
}

function compactJson(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = JSON.stringify(value);
  if (text === '{}') return '';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
