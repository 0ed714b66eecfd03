import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { listenLoopback, parseJson, readBody, sendJson, startSse, writeSse } from './http-stub';

/**
 * An Anthropic Messages API stub for the real `claude` CLI: `POST /v1/messages?beta=true`
 * answered with the streaming SSE sequence (REAL-RUNTIMES.md), `HEAD /` → 404.
 * Each request is recorded; a responder decides per request between a text answer and a
 * `tool_use` block.
 */
const ContentBlockSchema = z.looseObject({ type: z.string() });
const MessageSchema = z.looseObject({
  role: z.string(),
  content: z.union([z.string(), z.array(ContentBlockSchema)]),
});
const MessagesRequestSchema = z.looseObject({
  model: z.string().optional(),
  messages: z.array(MessageSchema),
  tools: z.array(z.looseObject({ name: z.string() })).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof MessagesRequestSchema>;

export interface AnthropicRecordedRequest {
  path: string;
  body: MessagesRequest;
  /** Names of the tools the client offered in this request. */
  toolNames: string[];
  /** The whole request body as text, for "did the history reach the model" checks. */
  raw: string;
  /** The credential headers as they arrived (did the real key reach the model API?). */
  apiKey: string | undefined;
  authorization: string | undefined;
}

export type AnthropicReply =
  { kind: 'text'; text: string } | { kind: 'tool_use'; name: string; input: Record<string, unknown> } | { kind: 'http_error'; status: number; message: string };

export type AnthropicResponder = (req: AnthropicRecordedRequest) => AnthropicReply;

export const STUB_USAGE = { input_tokens: 21, output_tokens: 9 } as const;

/** True when the last user message carries a tool_result (the model's tool call came back). */
export function hasToolResult(req: AnthropicRecordedRequest): boolean {
  const last = req.body.messages[req.body.messages.length - 1];
  return !!last && Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result');
}

export const replyText =
  (text: string): AnthropicResponder =>
  () => ({ kind: 'text', text });

/**
 * Calls `toolName` with `input` when the request offers that tool and has no tool result
 * yet; answers `finalText` once the result is back. Requests that do not offer the tool
 * (side requests the CLI may make) get `finalText` too.
 */
export function callToolThenText(toolName: string, input: Record<string, unknown>, finalText: string): AnthropicResponder {
  return (req) => {
    if (req.toolNames.includes(toolName) && !hasToolResult(req)) return { kind: 'tool_use', name: toolName, input };
    return { kind: 'text', text: finalText };
  };
}

export interface AnthropicStub {
  /** Base URL for ANTHROPIC_BASE_URL. */
  url: string;
  requests: AnthropicRecordedRequest[];
  respond: AnthropicResponder;
  close(): Promise<void>;
}

function streamReply(res: ServerResponse, reply: Exclude<AnthropicReply, { kind: 'http_error' }>, seq: number): void {
  startSse(res);
  writeSse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: `msg_stub_${seq}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-stub',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: STUB_USAGE.input_tokens, output_tokens: 1 },
    },
  });
  if (reply.kind === 'text') {
    writeSse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    writeSse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: reply.text } });
  } else {
    writeSse(res, 'content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: `toolu_stub_${seq}`, name: reply.name, input: {} },
    });
    writeSse(res, 'content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.input) },
    });
  }
  writeSse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  writeSse(res, 'message_delta', {
    type: 'message_delta',
    delta: { stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
    usage: { output_tokens: STUB_USAGE.output_tokens },
  });
  writeSse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

// Side requests may ask without streaming; answer them with the same content as one JSON message.
function wholeMessage(reply: Exclude<AnthropicReply, { kind: 'http_error' }>, seq: number): unknown {
  const content =
    reply.kind === 'text' ? [{ type: 'text', text: reply.text }] : [{ type: 'tool_use', id: `toolu_stub_${seq}`, name: reply.name, input: reply.input }];
  return {
    id: `msg_stub_${seq}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-stub',
    content,
    stop_reason: reply.kind === 'text' ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: STUB_USAGE,
  };
}

export async function startAnthropicStub(respond: AnthropicResponder = replyText('done')): Promise<AnthropicStub> {
  const stub: Omit<AnthropicStub, 'url' | 'close'> = { requests: [], respond };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://stub.invalid');
    if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
      await readBody(req);
      return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: 'not found' } });
    }
    const raw = await readBody(req);
    const parsed = MessagesRequestSchema.safeParse(parseJson(raw));
    if (!parsed.success) {
      return sendJson(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: parsed.error.message } });
    }
    const recorded: AnthropicRecordedRequest = {
      apiKey: typeof req.headers['x-api-key'] === 'string' ? req.headers['x-api-key'] : undefined,
      authorization: req.headers.authorization,
      path: `${url.pathname}${url.search}`,
      body: parsed.data,
      toolNames: (parsed.data.tools ?? []).map((t) => t.name),
      raw,
    };
    stub.requests.push(recorded);
    const reply = stub.respond(recorded);
    if (reply.kind === 'http_error') {
      return sendJson(res, reply.status, { type: 'error', error: { type: 'api_error', message: reply.message } });
    }
    if (parsed.data.stream === true) return streamReply(res, reply, stub.requests.length);
    sendJson(res, 200, wholeMessage(reply, stub.requests.length));
  };

  const server = await listenLoopback(handle);
  return Object.assign(stub, { url: server.origin, close: server.close });
}
