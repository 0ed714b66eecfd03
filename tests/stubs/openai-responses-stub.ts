import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { listenLoopback, parseJson, readBody, sendJson, startSse, writeSse } from './http-stub';

/**
 * An OpenAI Responses API stub for the real `codex` CLI: `POST /v1/responses` answered
 * with SSE (REAL-RUNTIMES.md: `response.output_item.done` items, then
 * `response.completed` with usage). A responder picks text or a `function_call`.
 */
const InputItemSchema = z.looseObject({ type: z.string().optional(), role: z.string().optional() });
const ToolSchema = z.looseObject({ type: z.string().optional(), name: z.string().optional() });
const ResponsesRequestSchema = z.looseObject({
  model: z.string().optional(),
  input: z.array(InputItemSchema),
  tools: z.array(ToolSchema).optional(),
  stream: z.boolean().optional(),
});
export type ResponsesRequest = z.infer<typeof ResponsesRequestSchema>;

export interface ResponsesRecordedRequest {
  body: ResponsesRequest;
  raw: string;
  /** The request's credential headers as they arrived (did the real key reach the model API?). */
  authorization: string | undefined;
}

export type ResponsesReply =
  | { kind: 'text'; text: string }
  | { kind: 'function_call'; name: string; namespace?: string; arguments: Record<string, unknown> }
  /** Starts the stream and never finishes it: a model that hangs (for cancel tests). */
  | { kind: 'hang' };

export type ResponsesResponder = (req: ResponsesRecordedRequest) => ResponsesReply;

export const STUB_RESPONSES_USAGE = { input_tokens: 33, output_tokens: 11 } as const;

export function hasFunctionOutput(req: ResponsesRecordedRequest): boolean {
  return req.body.input.some((item) => item.type === 'function_call_output');
}

export const respondText =
  (text: string): ResponsesResponder =>
  () => ({ kind: 'text', text });

/** A function call on the first model request, then `finalText` once its output came back. */
export function callFunctionThenText(call: { name: string; namespace?: string; arguments: Record<string, unknown> }, finalText: string): ResponsesResponder {
  return (req) => (hasFunctionOutput(req) ? { kind: 'text', text: finalText } : { kind: 'function_call', ...call });
}

export interface ResponsesStub {
  /** Base URL for a codex model provider: http://127.0.0.1:<port>/v1 */
  baseUrl: string;
  requests: ResponsesRecordedRequest[];
  respond: ResponsesResponder;
  /** Extra response headers, e.g. codex's `x-codex-primary-used-percent` rate-limit headers. */
  headers: Record<string, string>;
  close(): Promise<void>;
}

function outputItem(reply: Exclude<ResponsesReply, { kind: 'hang' }>, seq: number): Record<string, unknown> {
  if (reply.kind === 'text') {
    return {
      type: 'message',
      id: `msg_stub_${seq}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    };
  }
  return {
    type: 'function_call',
    id: `fc_stub_${seq}`,
    call_id: `call_stub_${seq}`,
    name: reply.name,
    ...(reply.namespace ? { namespace: reply.namespace } : {}),
    arguments: JSON.stringify(reply.arguments),
    status: 'completed',
  };
}

function streamReply(res: ServerResponse, reply: Exclude<ResponsesReply, { kind: 'hang' }>, seq: number, headers: Record<string, string>): void {
  const id = `resp_stub_${seq}`;
  startSse(res, headers);
  writeSse(res, 'response.created', { type: 'response.created', response: { id, status: 'in_progress' } });
  writeSse(res, 'response.output_item.done', { type: 'response.output_item.done', output_index: 0, item: outputItem(reply, seq) });
  writeSse(res, 'response.completed', {
    type: 'response.completed',
    response: {
      id,
      status: 'completed',
      usage: {
        input_tokens: STUB_RESPONSES_USAGE.input_tokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: STUB_RESPONSES_USAGE.output_tokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: STUB_RESPONSES_USAGE.input_tokens + STUB_RESPONSES_USAGE.output_tokens,
      },
    },
  });
  res.end();
}

export async function startResponsesStub(respond: ResponsesResponder = respondText('done')): Promise<ResponsesStub> {
  const stub: Omit<ResponsesStub, 'baseUrl' | 'close'> = { requests: [], respond, headers: {} };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://stub.invalid');
    const raw = await readBody(req);
    if (req.method !== 'POST' || url.pathname !== '/v1/responses') {
      return sendJson(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
    }
    const parsed = ResponsesRequestSchema.safeParse(parseJson(raw));
    if (!parsed.success) return sendJson(res, 400, { error: { message: parsed.error.message, type: 'invalid_request_error' } });
    const recorded: ResponsesRecordedRequest = { body: parsed.data, raw, authorization: req.headers.authorization };
    stub.requests.push(recorded);
    const reply = stub.respond(recorded);
    if (reply.kind === 'hang') return startSse(res, stub.headers); // close() ends it
    streamReply(res, reply, stub.requests.length, stub.headers);
  };

  const server = await listenLoopback(handle);
  return Object.assign(stub, { baseUrl: `${server.origin}/v1`, close: server.close });
}
