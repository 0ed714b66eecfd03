import { CommandRequestSchema, PairingStartRequestSchema } from '../../shared/protocol';
import { HttpError, json } from '../http/reply';
import type { RouteDef } from '../http/router';
import type { Services } from '../services';
import { parseWith } from './parse';

/** Protocol §5: operator commands, confirmation status, and who-am-I. */
export function forgeRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/api/commands/:command_id',
      handler: (ctx) => {
        const operator = s.oauth.authenticate(ctx.req.headers.authorization);
        if (ctx.body === null || typeof ctx.body !== 'object' || Array.isArray(ctx.body)) {
          throw new HttpError(400, 'invalid_request', 'body: expected an object { input }');
        }
        const { input } = parseWith(CommandRequestSchema, ctx.body);
        // Seed transport for pairing (`rost runner serve` asks for a code as a signed-in operator).
        if (ctx.params.command_id === 'runner.pairing.start') {
          return json(200, { output: s.pairing.startForOperator(parseWith(PairingStartRequestSchema, input, 'input', 'input'), ctx.ip, operator) });
        }
        return s.commands.execute(operator, ctx.params.command_id!, input);
      },
    },
    {
      method: 'GET',
      pattern: '/api/confirmations/:id',
      handler: (ctx) => {
        const operator = s.oauth.authenticate(ctx.req.headers.authorization);
        const record = s.confirmations.get(ctx.params.id!, operator.tenant_id);
        if (!record) throw new HttpError(404, 'not_found', 'unknown confirmation');
        const { id, command_id, status, expires_at, output, error } = record;
        return json(200, { id, command_id, status, expires_at, ...(output !== undefined ? { output } : {}), ...(error ? { error } : {}) });
      },
    },
    {
      method: 'GET',
      pattern: '/api/operator/me',
      handler: (ctx) => {
        const op = s.oauth.authenticate(ctx.req.headers.authorization);
        return json(200, { operator_id: op.id, tenant_id: op.tenant_id, name: op.name, role: op.role });
      },
    },
  ];
}
