import type { z } from 'zod';
import { DeviceAuthorizationRequestSchema, RevocationRequestSchema, TokenRequestSchema } from '../../shared/protocol';
import { describeZodError, empty, json } from '../http/reply';
import type { RouteDef } from '../http/router';
import { oauthError } from '../domain/oauth';
import type { Services } from '../services';

/** RFC-style 400 `{ error, error_description }` naming the field. */
function parseOAuth<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const grantIssue = result.error.issues.find((i) => i.path[0] === 'grant_type');
  const grant = (body as Record<string, unknown> | null)?.grant_type;
  if (grantIssue && typeof grant === 'string' && grant.length > 0) {
    throw oauthError(400, 'unsupported_grant_type', `grant_type ${grant} is not supported`);
  }
  throw oauthError(400, 'invalid_request', describeZodError(result.error));
}

/** Operator identity (RFC 8414 metadata, RFC 8628 device flow, refresh, RFC 7009 revocation). */
export function oauthRoutes(s: Services): RouteDef[] {
  return [
    { method: 'GET', pattern: '/.well-known/oauth-authorization-server', handler: () => json(200, s.oauth.metadata()) },
    {
      method: 'POST',
      pattern: '/oauth/device_authorization',
      body: 'json-or-form',
      handler: (ctx) => json(200, s.oauth.deviceAuthorization(parseOAuth(DeviceAuthorizationRequestSchema, ctx.body))),
    },
    {
      method: 'POST',
      pattern: '/oauth/token',
      body: 'json-or-form',
      handler: (ctx) => json(200, s.oauth.token(parseOAuth(TokenRequestSchema, ctx.body)), { pragma: 'no-cache' }),
    },
    {
      method: 'POST',
      pattern: '/oauth/revoke',
      body: 'json-or-form',
      handler: (ctx) => {
        s.oauth.revoke(parseOAuth(RevocationRequestSchema, ctx.body).token);
        return empty(200);
      },
    },
  ];
}
