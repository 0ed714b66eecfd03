import { z } from 'zod';

/** JSON-RPC 2.0 message as the `/mcp` endpoint reads it (Streamable HTTP, plain JSON answers). [v1] */
export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string().max(200), z.number().int()]).optional(),
  method: z.string().min(1).max(200),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

export const McpToolCallParamsSchema = z.object({
  name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/** Arguments of the `report_progress` tool. [v1] */
export const ReportProgressArgsSchema = z.strictObject({
  message: z.string().trim().min(1).max(2000),
  percent: z.number().min(0).max(100).optional(),
});

export const MCP_PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'] as const;
