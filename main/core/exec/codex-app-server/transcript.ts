import { z } from 'zod';
import type { TranscriptSink } from '../transcript-writer';

/**
 * The app-server's item notifications as transcript lines, checked against the bindings
 * codex-cli 0.171.0 generates (`codex app-server generate-ts`: ItemStartedNotification,
 * ItemCompletedNotification, AgentMessageDeltaNotification,
 * ReasoningSummaryTextDeltaNotification, CommandExecutionOutputDeltaNotification, ThreadItem).
 *
 * - `item/agentMessage/delta {itemId, delta}`: the model's answer as it writes it
 * - `item/reasoning/summaryTextDelta {itemId, summaryIndex, delta}`: its reasoning summary
 * - `item/commandExecution/outputDelta {itemId, delta}`: a command's output
 * - `item/started`: a command (`$ …`), a tool call
 * - `item/completed`: what streamed closes (or is written whole when nothing streamed);
 *   a command's exit code; a file change's paths
 *
 * Only our thread's notifications come here (the turn runner filters them).
 */
const DeltaSchema = z.looseObject({ itemId: z.string(), delta: z.string(), summaryIndex: z.number().int().min(0).optional() });

const ItemSchema = z.looseObject({
  type: z.string(),
  id: z.string(),
  text: z.string().optional(),
  summary: z.array(z.string()).optional(),
  command: z.string().optional(),
  aggregatedOutput: z.string().nullable().optional(),
  exitCode: z.number().int().nullable().optional(),
  changes: z
    .array(z.looseObject({ path: z.string(), kind: z.looseObject({ type: z.string(), move_path: z.string().nullable().optional() }).optional() }))
    .optional(),
  server: z.string().optional(),
  tool: z.string().optional(),
  namespace: z.string().nullable().optional(),
});
type Item = z.infer<typeof ItemSchema>;
const ItemEventSchema = z.looseObject({ item: ItemSchema });

const outputKey = (id: string) => `${id}:output`;
const reasoningKey = (id: string, index: number) => `${id}:reasoning:${index}`;

/** Writes one notification of our thread into the transcript; notifications it has no use for are ignored. */
export function appServerTranscript(method: string, params: unknown, out: TranscriptSink): void {
  switch (method) {
    case 'item/agentMessage/delta':
    case 'item/reasoning/summaryTextDelta':
    case 'item/commandExecution/outputDelta': {
      const delta = DeltaSchema.safeParse(params);
      if (!delta.success) return;
      const { itemId, summaryIndex } = delta.data;
      if (method === 'item/agentMessage/delta') out.delta(itemId, 'text', delta.data.delta);
      else if (method === 'item/reasoning/summaryTextDelta') out.delta(reasoningKey(itemId, summaryIndex ?? 0), 'reasoning', delta.data.delta);
      else out.delta(outputKey(itemId), 'output', delta.data.delta);
      return;
    }
    case 'item/started': {
      const event = ItemEventSchema.safeParse(params);
      if (event.success) started(event.data.item, out);
      return;
    }
    case 'item/completed': {
      const event = ItemEventSchema.safeParse(params);
      if (event.success) completed(event.data.item, out);
      return;
    }
    default:
      return;
  }
}

function started(item: Item, out: TranscriptSink): void {
  if (item.type === 'commandExecution' && item.command) out.line('command', `$ ${item.command}`);
  else if (item.type === 'mcpToolCall') out.line('tool', `${item.server ?? 'mcp'}.${item.tool ?? 'tool'}`);
  else if (item.type === 'dynamicToolCall') out.line('tool', item.tool ?? 'tool');
}

function completed(item: Item, out: TranscriptSink): void {
  switch (item.type) {
    case 'agentMessage':
      return out.finish(item.id, 'text', item.text);
    case 'reasoning':
      (item.summary ?? []).forEach((text, i) => out.finish(reasoningKey(item.id, i), 'reasoning', text));
      return;
    case 'commandExecution': {
      out.finish(outputKey(item.id), 'output', item.aggregatedOutput ?? undefined);
      const code = item.exitCode ?? null;
      return out.line('command', code === null ? 'ended' : `exit ${code}`, code);
    }
    case 'fileChange':
      for (const change of item.changes ?? []) {
        const kind = change.kind?.type ?? 'change';
        out.line('file', change.kind?.move_path ? `move ${change.path} → ${change.kind.move_path}` : `${kind} ${change.path}`);
      }
      return;
    default:
      return;
  }
}
