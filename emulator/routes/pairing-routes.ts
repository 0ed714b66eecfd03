import { PairingClaimRequestSchema, PairingStartRequestSchema } from '../../shared/protocol';
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
        const body = parseWith(PairingClaimRequestSchema, ctx.body);
        return json(200, 'pairing_id' in body ? s.pairing.claim(body.pairing_id) : s.pairing.claimByCode(body));
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
