import { JsonRpcRequestSchema, MCP_PROTOCOL_VERSIONS, McpToolCallParamsSchema, ReportProgressArgsSchema } from '../../shared/protocol';
import type { EmulatorContext } from '../context';
import { iso } from '../context';
import { hashSecret } from '../crypto';
import { HttpError, describeZodError, empty, json, type Reply } from '../http/reply';
import { bearer } from './runners';
import type { UnitRow, UnitStore } from './units';

export interface McpCallRecord {
  seq: number;
  unit_id: string;
  runner_id: string | null;
  method: string;
  tool: string | null;
  arguments: unknown;
  at: string;
}

const REPORT_PROGRESS_TOOL = {
  name: 'report_progress',
  description: 'Report progress on the current unit of work to the control plane.',
  inputSchema: {
    type: 'object',
    properties: {
      message: { type: 'string', minLength: 1, maxLength: 2000, description: 'What was done or is happening now.' },
      percent: { type: 'number', minimum: 0, maximum: 100, description: 'Rough completion estimate.' },
    },
    required: ['message'],
    additionalProperties: false,
  },
};

const rpcError = (id: unknown, code: number, message: string, status = 200): Reply =>
  json(status, { jsonrpc: '2.0', id: id ?? null, error: { code, message } });
const rpcResult = (id: unknown, result: unknown): Reply => json(200, { jsonrpc: '2.0', id, result });

/** A minimal MCP server (Streamable HTTP, plain JSON) for the unit-scoped token of a claimed unit. */
export class McpService {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly units: UnitStore,
  ) {}

  /** Only the token of the unit's current attempt, before it expires and while the unit is live. */
  authenticate(authorization: string | undefined): UnitRow {
    const token = bearer(authorization);
    const row = token
      ? (this.ctx.db.prepare('SELECT unit_id, attempt, expires_at FROM mcp_tokens WHERE token_hash = ?').get(hashSecret(token)) as
          { unit_id: string; attempt: number; expires_at: number } | undefined)
      : undefined;
    const unit = row ? this.units.row(row.unit_id) : undefined;
    const live = row && unit && row.expires_at > this.ctx.now() && row.attempt === unit.attempt && (unit.status === 'claimed' || unit.status === 'running');
    if (!live) {
      throw new HttpError(
        401,
        'invalid_token',
        'MCP token missing, unknown, expired or its unit has ended',
        {},
        { 'www-authenticate': 'Bearer error="invalid_token"' },
      );
    }
    return unit!;
  }

  handle(unit: UnitRow, body: unknown): Reply {
    if (Array.isArray(body)) return rpcError(null, -32600, 'batches are not supported', 400);
    const parsed = JsonRpcRequestSchema.safeParse(body);
    if (!parsed.success) {
      const looksLikeResponse = body !== null && typeof body === 'object' && !('method' in body) && ('result' in body || 'error' in body);
      if (looksLikeResponse) return empty(202);
      return rpcError(null, -32600, `invalid JSON-RPC request: ${describeZodError(parsed.error)}`, 400);
    }
    const message = parsed.data;
    if (message.id === undefined) return empty(202); // notifications need no answer
    const tool = message.method === 'tools/call' && typeof message.params?.name === 'string' ? message.params.name : null;
    this.ctx.db
      .prepare('INSERT INTO mcp_calls (unit_id, runner_id, method, tool, arguments, at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(unit.id, unit.runner_id, message.method, tool, message.params?.arguments ? JSON.stringify(message.params.arguments) : null, this.ctx.now());
    this.ctx.events.emit('mcp.call', { unit_id: unit.id, method: message.method, tool });

    switch (message.method) {
      case 'initialize': {
        const asked = message.params?.protocolVersion;
        const version = (MCP_PROTOCOL_VERSIONS as readonly unknown[]).includes(asked) ? (asked as string) : MCP_PROTOCOL_VERSIONS[0];
        return rpcResult(message.id, {
          protocolVersion: version,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'runner-tray-emulator', version: '1.0.0' },
        });
      }
      case 'ping':
        return rpcResult(message.id, {});
      case 'tools/list':
        return rpcResult(message.id, { tools: [REPORT_PROGRESS_TOOL] });
      case 'tools/call':
        return this.callTool(message.id, message.params);
      default:
        return rpcError(message.id, -32601, `method not found: ${message.method}`);
    }
  }

  listCalls(filter: { unit_id?: string; tool?: string } = {}): McpCallRecord[] {
    const rows = this.ctx.db
      .prepare('SELECT * FROM mcp_calls WHERE (@unit IS NULL OR unit_id = @unit) AND (@tool IS NULL OR tool = @tool) ORDER BY seq')
      .all({ unit: filter.unit_id ?? null, tool: filter.tool ?? null }) as Array<
      Omit<McpCallRecord, 'at' | 'arguments'> & { at: number; arguments: string | null }
    >;
    return rows.map((r) => ({ ...r, arguments: r.arguments ? JSON.parse(r.arguments) : null, at: iso(r.at) }));
  }

  private callTool(id: string | number, params: Record<string, unknown> | undefined): Reply {
    const call = McpToolCallParamsSchema.safeParse(params ?? {});
    if (!call.success) return rpcError(id, -32602, `invalid params: ${describeZodError(call.error, 'params')}`);
    if (call.data.name !== REPORT_PROGRESS_TOOL.name) return rpcError(id, -32602, `unknown tool: ${call.data.name}`);
    const args = ReportProgressArgsSchema.safeParse(call.data.arguments ?? {});
    if (!args.success) {
      return rpcResult(id, { isError: true, content: [{ type: 'text', text: `invalid arguments: ${describeZodError(args.error, 'arguments')}` }] });
    }
    const percent = args.data.percent === undefined ? '' : ` (${args.data.percent}%)`;
    return rpcResult(id, { content: [{ type: 'text', text: `progress recorded${percent}` }] });
  }
}
