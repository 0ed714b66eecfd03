import type { RouteDef } from '../http/router';
import type { Services } from '../services';

/** Minimal MCP endpoint (Streamable HTTP, plain JSON). GET and DELETE answer 405 via the router. */
export function mcpRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/mcp',
      body: 'json-any',
      handler: (ctx) => s.mcp.handle(s.mcp.authenticate(ctx.req.headers.authorization), ctx.body),
    },
  ];
}
