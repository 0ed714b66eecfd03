import type { IncomingMessage } from 'node:http';
import { SECHROOM_SCOPE, SECHROOM_SURFACE_HEADER, SECHROOM_TENANT_HEADER } from '../../../shared/protocol/sechroom';
import type { OperatorRecord, IdentityService, TenantRecord } from '../../domain/identity';
import type { OAuthService } from '../../domain/oauth';
import { HttpError } from '../../http/reply';

/** Who is calling the Work Layer: the token's operator, the tenant the `tenant` header named, and the surface. */
export interface Caller {
  operator: OperatorRecord;
  tenantId: string;
  tenant: TenantRecord;
  surface: string;
  scope: string;
}

const SURFACE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Bearer (an operator access token with the `sechroom` scope) → 401/403; then the `tenant`
 * header (the tenant's id or name) and `x-sechroom-surface` → 400/403. [seed B3 headers, v1 checks]
 */
export class SechroomAuth {
  constructor(
    private readonly oauth: OAuthService,
    private readonly identity: IdentityService,
  ) {}

  caller(req: IncomingMessage): Caller {
    const { operator, scope } = this.oauth.resolveAccess(header(req, 'authorization'));
    const scopes = (scope ?? '').split(/\s+/).filter(Boolean);
    if (!scopes.includes(SECHROOM_SCOPE)) {
      throw new HttpError(
        403,
        'insufficient_scope',
        `token lacks the ${SECHROOM_SCOPE} scope`,
        {},
        {
          'www-authenticate': `Bearer error="insufficient_scope", scope="${SECHROOM_SCOPE}"`,
        },
      );
    }
    const named = header(req, SECHROOM_TENANT_HEADER)?.trim();
    if (!named) throw new HttpError(400, 'missing_tenant', `the ${SECHROOM_TENANT_HEADER} header is required`);
    const tenant = this.identity.getTenant(operator.tenant_id);
    if (!tenant || (named !== tenant.id && named.toLowerCase() !== tenant.name.toLowerCase())) {
      throw new HttpError(403, 'tenant_mismatch', 'the tenant header does not name the tenant of this token');
    }
    const surface = header(req, SECHROOM_SURFACE_HEADER)?.trim();
    if (!surface) throw new HttpError(400, 'missing_surface', `the ${SECHROOM_SURFACE_HEADER} header is required`);
    if (!SURFACE.test(surface)) throw new HttpError(400, 'invalid_surface', `${SECHROOM_SURFACE_HEADER} must be a short token such as cli or app`);
    return { operator, tenantId: tenant.id, tenant, surface, scope: scopes.join(' ') };
  }
}
