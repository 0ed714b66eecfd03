import type { z } from 'zod';
import { json } from '../../http/reply';
import type { RequestCtx, RouteDef } from '../../http/router';
import { parseWith } from '../../routes/parse';
import type { Caller } from '../domain/auth';
import type { SechroomServices } from '../services';

/** Every Work Layer path hangs off this base, so the seed's paths follow `<base URL>/sechroom`. */
export const SECHROOM_BASE = '/sechroom';

type Method = RouteDef['method'];

/** An authenticated JSON route under the base: the handler gets the caller and answers 200 with its value. */
export function authed(s: SechroomServices, method: Method, pattern: string, handler: (ctx: RequestCtx, caller: Caller) => unknown): RouteDef {
  return {
    method,
    pattern: `${SECHROOM_BASE}${pattern}`,
    handler: async (ctx) => {
      const caller = s.auth.caller(ctx.req);
      return json(200, await handler(ctx, caller));
    },
  };
}

export const body = <T extends z.ZodType>(schema: T, ctx: RequestCtx): z.infer<T> => parseWith(schema, ctx.body);
export const query = <T extends z.ZodType>(schema: T, ctx: RequestCtx): z.infer<T> => parseWith(schema, Object.fromEntries(ctx.query), 'query');
