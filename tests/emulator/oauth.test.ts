import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthorizationServerMetadataSchema,
  DEVICE_CODE_GRANT_TYPE,
  DeviceAuthorizationResponseSchema,
  OAuthErrorSchema,
  OperatorIdentitySchema,
  TokenResponseSchema,
} from '../../shared/protocol';
import { csrfFrom, fakeClock, getPage, launch, postForm, signIn } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterEach(() => emu?.close());

const form = (path: string, fields: Record<string, string>) =>
  fetch(`${emu.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) }).then(
    async (res) => ({ status: res.status, json: JSON.parse((await res.text()) || '{}') }),
  );

async function deviceFlow() {
  const res = await form('/oauth/device_authorization', { client_id: 'runner-tray', scope: 'forge' });
  return DeviceAuthorizationResponseSchema.parse(res.json);
}
const pollToken = (device_code: string) => form('/oauth/token', { grant_type: DEVICE_CODE_GRANT_TYPE, device_code, client_id: 'runner-tray' });

describe('operator OAuth', () => {
  it('publishes RFC 8414 metadata', async () => {
    emu = await launch();
    const meta = AuthorizationServerMetadataSchema.parse((await emu.call('/.well-known/oauth-authorization-server')).json);
    expect(meta).toMatchObject({
      issuer: emu.url,
      device_authorization_endpoint: `${emu.url}/oauth/device_authorization`,
      token_endpoint: `${emu.url}/oauth/token`,
      revocation_endpoint: `${emu.url}/oauth/revoke`,
    });
    expect(meta.grant_types_supported).toEqual([DEVICE_CODE_GRANT_TYPE, 'refresh_token']);
  });

  it('runs the device flow: pending, slow_down, approval on the page, tokens once', async () => {
    const clock = fakeClock();
    emu = await launch({ now: clock.now });
    const op = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    const d = await deviceFlow();
    expect(d.verification_uri).toBe(`${emu.url}/oauth/device`);
    expect((await pollToken(d.device_code)).json.error).toBe('authorization_pending');
    clock.advance(1000);
    expect(OAuthErrorSchema.parse((await pollToken(d.device_code)).json).error).toBe('slow_down');

    const cookie = await signIn(emu.url, op.id);
    const page = await getPage(emu.url, `/oauth/device?code=${d.user_code.toLowerCase()}`, cookie);
    expect(page.text).toContain('runner-tray');
    await postForm(emu.url, '/oauth/device/decision', cookie, { code: d.user_code, decision: 'approve', csrf: csrfFrom(page.text) });

    clock.advance(11_000);
    const ok = await pollToken(d.device_code);
    expect(ok.status).toBe(200);
    const tokens = TokenResponseSchema.parse(ok.json);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'forge' });
    const me = OperatorIdentitySchema.parse((await emu.call('/api/operator/me', { token: tokens.access_token })).json);
    expect(me).toMatchObject({ operator_id: op.id, role: 'tenant_admin' });
    clock.advance(11_000);
    expect((await pollToken(d.device_code)).json.error).toBe('invalid_grant');
  });

  it('answers access_denied, expired_token and field-named errors', async () => {
    const clock = fakeClock();
    emu = await launch({ now: clock.now, config: { oauthIntervalSec: 0 } });
    const op = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    const denied = await deviceFlow();
    emu.admin.decideOAuthDeviceCode(denied.user_code, op.id, 'deny');
    expect((await pollToken(denied.device_code)).json.error).toBe('access_denied');
    const late = await deviceFlow();
    clock.advance(601_000);
    expect((await pollToken(late.device_code)).json.error).toBe('expired_token');
    const missing = await form('/oauth/token', { grant_type: DEVICE_CODE_GRANT_TYPE, client_id: 'x' });
    expect([missing.status, missing.json.error]).toEqual([400, 'invalid_request']);
    expect(missing.json.error_description).toMatch(/device_code/);
    expect((await form('/oauth/token', { grant_type: 'password', username: 'a' })).json.error).toBe('unsupported_grant_type');
    expect((await form('/oauth/device_authorization', {})).json.error_description).toMatch(/client_id/);
    const other = await deviceFlow();
    const wrongClient = await form('/oauth/token', { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: other.device_code, client_id: 'someone-else' });
    expect(wrongClient.json.error).toBe('invalid_grant');
  });

  it('accepts JSON bodies too', async () => {
    emu = await launch({ config: { oauthIntervalSec: 0 } });
    const op = emu.admin.createOperator({ name: 'Ada', role: 'member' });
    const d = DeviceAuthorizationResponseSchema.parse((await emu.call('/oauth/device_authorization', { body: { client_id: 'cli' } })).json);
    emu.admin.decideOAuthDeviceCode(d.user_code, op.id);
    const res = await emu.call('/oauth/token', { body: { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: d.device_code, client_id: 'cli' } });
    expect(TokenResponseSchema.parse(res.json).access_token).toMatch(/^oat_/);
  });

  it('expires access tokens, refreshes with rotation, and revokes (RFC 7009)', async () => {
    const clock = fakeClock();
    emu = await launch({ now: clock.now, accessTokenTtlMs: 2_000 });
    const op = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    const first = emu.admin.issueOperatorTokens(op.id);
    expect(first.expires_in).toBe(2);
    expect((await emu.call('/api/operator/me', { token: first.access_token })).status).toBe(200);
    clock.advance(2_001);
    const expired = await emu.call('/api/operator/me', { token: first.access_token });
    expect([expired.status, expired.json.error]).toEqual([401, 'invalid_token']);
    expect(expired.headers.get('www-authenticate')).toMatch(/invalid_token/);

    const refreshed = TokenResponseSchema.parse((await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token! })).json);
    expect((await emu.call('/api/operator/me', { token: refreshed.access_token })).status).toBe(200);
    expect((await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token! })).json.error).toBe('invalid_grant');

    expect((await form('/oauth/revoke', { token: refreshed.access_token })).status).toBe(200);
    expect((await emu.call('/api/operator/me', { token: refreshed.access_token })).status).toBe(401);
    const second = TokenResponseSchema.parse((await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! })).json);
    expect((await form('/oauth/revoke', { token: second.refresh_token!, token_type_hint: 'refresh_token' })).status).toBe(200);
    expect((await emu.call('/api/operator/me', { token: second.access_token })).status).toBe(401); // the whole grant is gone
    expect((await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: second.refresh_token! })).json.error).toBe('invalid_grant');
    expect((await form('/oauth/revoke', { token: 'never-issued' })).status).toBe(200);
  });
});
