import { PairingClaimByCodeSchema, PairingClaimByIdSchema, PairingStartRequestSchema } from '../../shared/protocol';
import { json } from '../http/reply';
import type { RouteDef } from '../http/router';
import type { Services } from '../services';
import { parseWith } from './parse';

/** Protocol §1: device-code pairing of a runner, and unpairing. */
export function pairingRoutes(s: Services): RouteDef[] {
  return [
    {
      method: 'POST',
      pattern: '/api/runner/pairing/start',
      handler: (ctx) => json(200, s.pairing.start(parseWith(PairingStartRequestSchema, ctx.body), ctx.ip)),
    },
    {
      method: 'POST',
      pattern: '/api/runner/pairing/claim',
      handler: (ctx) => {
        // By pairing id (our start) or by user code (seed `--user-code`); errors name the fields of the one meant.
        const byCode = ctx.body !== null && typeof ctx.body === 'object' && 'user_code' in ctx.body && !('pairing_id' in ctx.body);
        if (byCode) return json(200, s.pairing.claimByCode(parseWith(PairingClaimByCodeSchema, ctx.body)));
        return json(200, s.pairing.claim(parseWith(PairingClaimByIdSchema, ctx.body).pairing_id));
      },
    },
    {
      method: 'POST',
      pattern: '/api/runner/unpair',
      handler: (ctx) => {
        const runner = s.runners.authenticate(ctx.req.headers.authorization);
        s.runners.revoke(runner.id, 'runner');
        return json(200, { unpaired: true });
      },
    },
  ];
}
