import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { JsonRpcRequestSchema, MCP_PROTOCOL_VERSIONS, McpToolCallParamsSchema, type JsonRpcRequest } from '../../shared/protocol';
import { listenLoopback, parseJson, readBody, sendJson } from './http-stub';

/**
 * A minimal MCP server over Streamable HTTP that answers with plain JSON (no SSE),
 * which both claude and codex accept. It exposes one tool, `report_progress`, checks the
 * bearer on every request, and records what it saw so a test can assert on the token.
 */
export interface McpRecordedRequest {
  method: string;
  /** The bearer the client sent (null when absent). */
  token: string | null;
  params: Record<string, unknown> | undefined;
}

export interface McpToolCall {
  name: string;
  arguments: Record<string, unknown>;
  token: string | null;
}

export interface McpStub {
  /** Absolute URL of the endpoint, e.g. http://127.0.0.1:41234/mcp */
  url: string;
  requests: McpRecordedRequest[];
  toolCalls: McpToolCall[];
  /** Requests refused for a missing or wrong bearer. */
  unauthorized: number;
  close(): Promise<void>;
}

export const REPORT_PROGRESS_TOOL = {
  name: 'report_progress',
  description: 'Report progress on the current unit of work to the control plane.',
  inputSchema: {
    type: 'object',
    properties: {
      message: { type: 'string', description: 'What was done or is being done.' },
      percent: { type: 'number', minimum: 0, maximum: 100 },
    },
    required: ['message'],
    additionalProperties: false,
  },
} as const;

const BEARER = /^Bearer\s+(\S+)$/i;

function bearerOf(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  const match = typeof header === 'string' ? BEARER.exec(header.trim()) : null;
  return match?.[1] ?? null;
}

export async function startMcpStub(options: { token: string }): Promise<McpStub> {
  const requests: McpRecordedRequest[] = [];
  const toolCalls: McpToolCall[] = [];
  const state = { unauthorized: 0 };

  const answer = (msg: JsonRpcRequest, token: string | null): unknown => {
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: msg.id, result });
    switch (msg.method) {
      case 'initialize': {
        const asked = z.object({ protocolVersion: z.string() }).safeParse(msg.params).data?.protocolVersion;
        const version = asked && (MCP_PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : MCP_PROTOCOL_VERSIONS[0];
        return ok({ protocolVersion: version, capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'mcp-stub', version: '0.0.0' } });
      }
      case 'ping':
        return ok({});
      case 'tools/list':
        return ok({ tools: [REPORT_PROGRESS_TOOL] });
      case 'tools/call': {
        const call = McpToolCallParamsSchema.safeParse(msg.params);
        if (!call.success || call.data.name !== REPORT_PROGRESS_TOOL.name) {
          return { jsonrpc: '2.0', id: msg.id, error: { code: -32602, message: 'unknown tool or bad params' } };
        }
        toolCalls.push({ name: call.data.name, arguments: call.data.arguments ?? {}, token });
        return ok({ content: [{ type: 'text', text: 'progress recorded' }], isError: false });
      }
      default:
        return { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } };
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://stub.invalid').pathname;
    if (path !== '/mcp') return sendJson(res, 404, { error: 'not_found' });
    // No server-initiated stream: clients fall back to request/response only.
    if (req.method !== 'POST') return sendJson(res, 405, { error: 'method_not_allowed' }, { allow: 'POST' });
    const token = bearerOf(req);
    const body = parseJson(await readBody(req));
    if (token !== options.token) {
      state.unauthorized++;
      return sendJson(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
    }
    const batch = Array.isArray(body) ? body : [body];
    const answers: unknown[] = [];
    for (const item of batch) {
      const parsed = JsonRpcRequestSchema.safeParse(item);
      if (!parsed.success) {
        answers.push({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request' } });
        continue;
      }
      requests.push({ method: parsed.data.method, token, params: parsed.data.params });
      // Notifications (no id) get no answer.
      if (parsed.data.id !== undefined) answers.push(answer(parsed.data, token));
    }
    if (answers.length === 0) {
      res.writeHead(202);
      res.end();
      return;
    }
    sendJson(res, 200, Array.isArray(body) ? answers : answers[0]);
  };

  const server = await listenLoopback(handle);
  return {
    url: `${server.origin}/mcp`,
    requests,
    toolCalls,
    get unauthorized() {
      return state.unauthorized;
    },
    close: server.close,
  };
}
