import {
  DEVICE_CODE_GRANT_TYPE,
  formatUserCode,
  normalizeUserCode,
  type AuthorizationServerMetadata,
  type DeviceAuthorizationRequest,
  type DeviceAuthorizationResponse,
  type TokenRequest,
  type TokenResponse,
} from '../../shared/protocol';
import type { EmulatorContext } from '../context';
import { iso } from '../context';
import { hashSecret, newId, newSecret, newUserCode } from '../crypto';
import { HttpError } from '../http/reply';
import { evaluatePoll } from './device-poll';
import type { IdentityService, OperatorRecord } from './identity';
import { bearer } from './runners';

interface DeviceCodeRow {
  id: string;
  user_code: string;
  client_id: string;
  scope: string | null;
  status: 'pending' | 'approved' | 'denied' | 'consumed';
  operator_id: string | null;
  interval_s: number;
  last_poll_at: number | null;
  created_at: number;
  expires_at: number;
}

export interface DeviceCodeRecord {
  id: string;
  user_code: string;
  client_id: string;
  scope: string | null;
  status: DeviceCodeRow['status'] | 'expired';
  operator_id: string | null;
  created_at: string;
  expires_at: string;
}

export const oauthError = (status: number, error: string, description: string): HttpError =>
  new HttpError(status, error, description, { error_description: description });

/** Operator identity: RFC 8628 device flow, refresh with rotation, RFC 7009 revocation. */
export class OAuthService {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly identity: IdentityService,
  ) {}

  metadata(): AuthorizationServerMetadata {
    const base = this.ctx.baseUrl;
    return {
      issuer: base,
      device_authorization_endpoint: `${base}/oauth/device_authorization`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      grant_types_supported: [DEVICE_CODE_GRANT_TYPE, 'refresh_token'],
      response_types_supported: [],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['forge'],
    };
  }

  deviceAuthorization(input: DeviceAuthorizationRequest): DeviceAuthorizationResponse {
    const now = this.ctx.now();
    const { oauthIntervalSec, oauthExpiresInSec } = this.ctx.config;
    const deviceCode = newSecret('odc');
    let code = newUserCode();
    while (this.ctx.db.prepare("SELECT 1 FROM oauth_device_codes WHERE user_code = ? AND status = 'pending' AND expires_at > ?").get(code, now)) {
      code = newUserCode();
    }
    const id = newId();
    this.ctx.db
      .prepare(
        `INSERT INTO oauth_device_codes (id, device_code_hash, user_code, client_id, scope, status, interval_s, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      )
      .run(id, hashSecret(deviceCode), code, input.client_id, input.scope ?? null, oauthIntervalSec, now, now + oauthExpiresInSec * 1000);
    this.ctx.events.emit('oauth.device_authorization', { id, client_id: input.client_id, user_code: formatUserCode(code) });
    const display = formatUserCode(code);
    return {
      device_code: deviceCode,
      user_code: display,
      verification_uri: `${this.ctx.baseUrl}/oauth/device`,
      verification_uri_complete: `${this.ctx.baseUrl}/oauth/device?code=${display}`,
      expires_in: oauthExpiresInSec,
      interval: oauthIntervalSec,
    };
  }

  token(input: TokenRequest): TokenResponse {
    if (input.grant_type === DEVICE_CODE_GRANT_TYPE) return this.deviceToken(input.device_code, input.client_id);
    return this.refresh(input.refresh_token);
  }

  revoke(token: string): void {
    const row = this.ctx.db.prepare('SELECT grant_id, kind FROM oauth_tokens WHERE token_hash = ?').get(hashSecret(token)) as
      { grant_id: string; kind: 'access' | 'refresh' } | undefined;
    if (!row) return; // RFC 7009: an unknown token is not an error
    const now = this.ctx.now();
    if (row.kind === 'refresh') {
      this.ctx.db.prepare('UPDATE oauth_tokens SET revoked_at = ? WHERE grant_id = ? AND revoked_at IS NULL').run(now, row.grant_id);
    } else {
      this.ctx.db.prepare('UPDATE oauth_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL').run(now, hashSecret(token));
    }
    this.ctx.events.emit('oauth.revoked', { grant_id: row.grant_id, kind: row.kind });
  }

  /** Resolves an operator bearer or throws 401 invalid_token. */
  authenticate(authorization: string | undefined): OperatorRecord {
    return this.resolveAccess(authorization).operator;
  }

  /** The operator and the scope of an access token, or 401 invalid_token. */
  resolveAccess(authorization: string | undefined): { operator: OperatorRecord; scope: string | null; grantId: string } {
    const token = bearer(authorization);
    const row = token
      ? (this.ctx.db
          .prepare("SELECT operator_id, grant_id, scope, expires_at, revoked_at FROM oauth_tokens WHERE token_hash = ? AND kind = 'access'")
          .get(hashSecret(token)) as { operator_id: string; grant_id: string; scope: string | null; expires_at: number; revoked_at: number | null } | undefined)
      : undefined;
    const operator = row && row.revoked_at === null && row.expires_at > this.ctx.now() ? this.identity.getOperator(row.operator_id) : undefined;
    if (!row || !operator) {
      const why = !token ? 'missing bearer token' : !row ? 'unknown token' : row.revoked_at !== null ? 'token revoked' : 'token expired';
      throw new HttpError(401, 'invalid_token', why, {}, { 'www-authenticate': `Bearer error="invalid_token", error_description="${why}"` });
    }
    return { operator, scope: row.scope, grantId: row.grant_id };
  }

  /** Access-token lifetime per scope (a plane with its own setting registers here); others use `accessTokenTtlMs`. */
  readonly accessTtlByScope = new Map<string, () => number>();

  private accessTtl(scope: string | null): number {
    const own = scope ? this.accessTtlByScope.get(scope) : undefined;
    return own ? own() : this.ctx.config.accessTokenTtlMs;
  }

  /** Tokens for an operator without the browser step (admin helper for tests). */
  issueTokens(
    operatorId: string,
    clientId = 'emulator-admin',
    scope: string | null = 'forge',
    grantId: string = newId(),
    accessTtlMs: number = this.accessTtl(scope),
  ): TokenResponse {
    if (!this.identity.getOperator(operatorId)) throw new HttpError(404, 'not_found', 'unknown operator');
    const now = this.ctx.now();
    const access = newSecret('oat');
    const refresh = newSecret('ort');
    const insert = this.ctx.db.prepare(
      `INSERT INTO oauth_tokens (token_hash, grant_id, kind, operator_id, client_id, scope, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    insert.run(hashSecret(access), grantId, 'access', operatorId, clientId, scope, now, now + accessTtlMs);
    insert.run(hashSecret(refresh), grantId, 'refresh', operatorId, clientId, scope, now, now + this.ctx.config.refreshTokenTtlMs);
    this.ctx.events.emit('oauth.token_issued', { grant_id: grantId, operator_id: operatorId, client_id: clientId });
    return {
      access_token: access,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.round(accessTtlMs / 1000)),
      refresh_token: refresh,
      ...(scope ? { scope } : {}),
    };
  }

  findByUserCode(code: string): DeviceCodeRecord | undefined {
    const canonical = normalizeUserCode(code);
    if (!canonical) return undefined;
    const row = this.ctx.db.prepare('SELECT * FROM oauth_device_codes WHERE user_code = ? ORDER BY created_at DESC LIMIT 1').get(canonical) as
      DeviceCodeRow | undefined;
    return row ? this.toRecord(row) : undefined;
  }

  decide(code: string, operator: OperatorRecord, decision: 'approve' | 'deny'): DeviceCodeRecord {
    const record = this.findByUserCode(code);
    if (!record) throw new HttpError(404, 'not_found', 'no sign-in request with that code');
    if (record.status !== 'pending') throw new HttpError(409, 'already_decided', `sign-in request is ${record.status}`);
    const status = decision === 'approve' ? 'approved' : 'denied';
    this.ctx.db.prepare('UPDATE oauth_device_codes SET status = ?, operator_id = ? WHERE id = ?').run(status, operator.id, record.id);
    this.ctx.events.emit(`oauth.device_${status}`, { id: record.id, operator_id: operator.id });
    return this.findByUserCode(code)!;
  }

  listDeviceCodes(): DeviceCodeRecord[] {
    return (this.ctx.db.prepare('SELECT * FROM oauth_device_codes ORDER BY created_at DESC').all() as DeviceCodeRow[]).map((r) => this.toRecord(r));
  }

  private deviceToken(deviceCode: string, clientId: string): TokenResponse {
    const row = this.ctx.db.prepare('SELECT * FROM oauth_device_codes WHERE device_code_hash = ?').get(hashSecret(deviceCode)) as DeviceCodeRow | undefined;
    if (!row) throw oauthError(400, 'invalid_grant', 'unknown device_code');
    if (row.client_id !== clientId) throw oauthError(400, 'invalid_grant', 'device_code was issued to another client_id');
    const now = this.ctx.now();
    const { outcome, interval_s } = evaluatePoll(row, now);
    this.ctx.db.prepare('UPDATE oauth_device_codes SET last_poll_at = ?, interval_s = ? WHERE id = ?').run(now, interval_s, row.id);
    switch (outcome) {
      case 'approved':
        this.ctx.db.prepare("UPDATE oauth_device_codes SET status = 'consumed' WHERE id = ?").run(row.id);
        return this.issueTokens(row.operator_id!, row.client_id, row.scope ?? 'forge');
      case 'consumed':
        throw oauthError(400, 'invalid_grant', 'device_code already used');
      case 'slow_down':
        throw oauthError(400, 'slow_down', `poll no faster than every ${interval_s} s`);
      case 'expired_token':
        throw oauthError(400, 'expired_token', 'device_code expired');
      case 'access_denied':
        throw oauthError(400, 'access_denied', 'the operator denied the request');
      default:
        throw oauthError(400, 'authorization_pending', 'waiting for the operator to approve');
    }
  }

  private refresh(token: string): TokenResponse {
    const row = this.ctx.db.prepare("SELECT * FROM oauth_tokens WHERE token_hash = ? AND kind = 'refresh'").get(hashSecret(token)) as
      { grant_id: string; operator_id: string; client_id: string; scope: string | null; expires_at: number; revoked_at: number | null } | undefined;
    if (!row || row.revoked_at !== null || row.expires_at <= this.ctx.now()) {
      throw oauthError(400, 'invalid_grant', 'refresh_token is unknown, revoked or expired');
    }
    // Rotation: each refresh token works once; the new pair continues the same grant.
    this.ctx.db.prepare('UPDATE oauth_tokens SET revoked_at = ? WHERE token_hash = ?').run(this.ctx.now(), hashSecret(token));
    return this.issueTokens(row.operator_id, row.client_id, row.scope, row.grant_id);
  }

  private toRecord(row: DeviceCodeRow): DeviceCodeRecord {
    const expired = row.status === 'pending' && row.expires_at <= this.ctx.now();
    return {
      id: row.id,
      user_code: formatUserCode(row.user_code),
      client_id: row.client_id,
      scope: row.scope,
      status: expired ? 'expired' : row.status,
      operator_id: row.operator_id,
      created_at: iso(row.created_at),
      expires_at: iso(row.expires_at),
    };
  }
}
