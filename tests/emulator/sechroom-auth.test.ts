import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthorizationServerMetadataSchema,
  DEVICE_CODE_GRANT_TYPE,
  DeviceAuthorizationResponseSchema,
  TokenResponseSchema,
  sechroom,
} from '../../shared/protocol';
import { fakeClock } from './helpers';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
afterEach(() => emu?.close());

const form = (base: string, path: string, fields: Record<string, string>) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields) }).then(
    async (res) => ({ status: res.status, json: JSON.parse((await res.text()) || '{}') }),
  );

describe('Sechroom auth', () => {
  it('refuses a missing, unknown, expired or revoked bearer with 401, and a token without the sechroom scope with 403', async () => {
    const clock = fakeClock();
    emu = await launchSechroom({ now: clock.now });
    expect((await emu.wl('/me')).json).toMatchObject({ operatorId: emu.session.operatorId, tenant: emu.session.tenant, scope: 'sechroom' });
    const missing = await emu.wl('/me', { as: { ...emu.session, token: '' } });
    expect([missing.status, missing.json.error, missing.json.message]).toEqual([401, 'invalid_token', 'missing bearer token']);
    expect(missing.headers.get('www-authenticate')).toMatch(/invalid_token/);
    expect((await emu.wl('/me', { as: { ...emu.session, token: 'oat_nope' } })).json.message).toBe('unknown token');
    const forge = emu.admin.issueOperatorTokens(emu.session.operatorId).access_token;
    const scoped = await emu.wl('/me', { as: { ...emu.session, token: forge } });
    expect([scoped.status, scoped.json.error]).toEqual([403, 'insufficient_scope']);
    const short = emu.mint({ ttl_ms: 1000 });
    clock.advance(1001);
    expect((await emu.wl('/me', { as: short })).json.message).toBe('token expired');
    await form(emu.url, '/oauth/revoke', { token: emu.session.token });
    expect((await emu.wl('/me')).json.message).toBe('token revoked');
  });

  it('checks the tenant header (id or name) and x-sechroom-surface', async () => {
    emu = await launchSechroom();
    const noTenant = await emu.wl('/me', { tenant: null });
    expect([noTenant.status, noTenant.json.error]).toEqual([400, 'missing_tenant']);
    const wrong = await emu.wl('/me', { tenant: 'someone-else' });
    expect([wrong.status, wrong.json.error]).toEqual([403, 'tenant_mismatch']);
    expect((await emu.wl('/me', { tenant: 'development TENANT' })).status).toBe(200);
    const noSurface = await emu.wl('/me', { surface: null });
    expect([noSurface.status, noSurface.json.error]).toEqual([400, 'missing_surface']);
    expect((await emu.wl('/me', { surface: 'no spaces allowed' })).json.error).toBe('invalid_surface');
    expect((await emu.wl('/me', { surface: 'app' })).status).toBe(200);
  });

  it('publishes OAuth metadata under the base URL; refresh_token (form) rotates; a short lifetime gives "still 401 after refresh"', async () => {
    const clock = fakeClock();
    emu = await launchSechroom({ now: clock.now });
    const meta = AuthorizationServerMetadataSchema.parse((await emu.call('/sechroom/.well-known/oauth-authorization-server')).json);
    expect(meta).toMatchObject({ issuer: emu.sechroomUrl, token_endpoint: `${emu.url}/oauth/token`, scopes_supported: ['sechroom'] });
    expect((await emu.call('/.well-known/oauth-authorization-server/sechroom')).json).toEqual(meta);
    expect(meta.grant_types_supported).toContain('refresh_token');

    emu.sechroom.setConfig({ accessTokenTtlMs: 5_000 });
    const s = emu.mint();
    clock.advance(5_001);
    expect((await emu.wl('/me', { as: s })).status).toBe(401);
    const refreshed = await form(emu.url, '/oauth/token', { grant_type: 'refresh_token', refresh_token: s.refresh });
    const tokens = TokenResponseSchema.parse(refreshed.json);
    expect(tokens).toMatchObject({ expires_in: 5, scope: 'sechroom' });
    expect((await emu.wl('/me', { as: { ...s, token: tokens.access_token } })).status).toBe(200);
    expect((await form(emu.url, '/oauth/token', { grant_type: 'refresh_token', refresh_token: s.refresh })).json.error).toBe('invalid_grant');

    // A lifetime shorter than the client's round trip: the refreshed token is dead on arrival.
    emu.sechroom.setConfig({ accessTokenTtlMs: 1 });
    const again = TokenResponseSchema.parse((await form(emu.url, '/oauth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! })).json);
    clock.advance(2);
    expect((await emu.wl('/me', { as: { ...s, token: again.access_token } })).status).toBe(401);
    expect(emu.sechroom.config().accessTokenTtlMs).toBe(1);
  });

  it('signs the app in with the shared RFC 8628 device flow (scope sechroom)', async () => {
    emu = await launchSechroom({ config: { oauthIntervalSec: 0 } });
    const d = DeviceAuthorizationResponseSchema.parse(
      (await form(emu.url, '/oauth/device_authorization', { client_id: 'runner-tray', scope: 'sechroom' })).json,
    );
    const op = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    emu.admin.decideOAuthDeviceCode(d.user_code, op.id);
    const tokens = TokenResponseSchema.parse(
      (await form(emu.url, '/oauth/token', { grant_type: DEVICE_CODE_GRANT_TYPE, device_code: d.device_code, client_id: 'runner-tray' })).json,
    );
    const me = sechroom.SechroomIdentitySchema.parse((await emu.wl('/me', { as: { ...emu.session, token: tokens.access_token } })).json);
    expect(me).toMatchObject({ operatorId: op.id, name: 'Ada' });
  });

  it('mints a SECHROOM_TOKEN over the admin HTTP API', async () => {
    emu = await launchSechroom();
    const minted = await emu.call('/_emulator/sechroom/tokens', { body: {} });
    expect(minted.status).toBe(201);
    expect(minted.json).toMatchObject({ access_token: expect.stringMatching(/^oat_/), token_type: 'Bearer', scope: 'sechroom', tenant: emu.session.tenant });
    expect((await emu.wl('/me', { as: { ...emu.session, token: minted.json.access_token } })).json.name).toBe('Sechroom executor');
    expect((await emu.call('/_emulator/sechroom/tokens', { body: { operator_id: 'nobody' } })).status).toBe(404);
    expect((await emu.call('/_emulator/sechroom/tokens', { body: { ttl: 5 } })).json.message).toMatch(/unknown field ttl/);
  });

  it('guards every Work Layer route: 401 without a bearer, 400 without the tenant header (the metadata is public)', async () => {
    emu = await launchSechroom();
    const { routes } = (await emu.call('/_emulator/sechroom')).json as { routes: Array<{ method: string; pattern: string }> };
    const api = routes.filter((r) => r.pattern.startsWith('/sechroom/') && !r.pattern.includes('.well-known'));
    expect(api.length).toBeGreaterThan(20);
    const failures: string[] = [];
    for (const route of api) {
      const path = route.pattern.replace('/sechroom', '').replace(/:[a-z]+/g, 'mem_x');
      const body = route.method === 'GET' ? undefined : {};
      const anon = await emu.wl(path, { method: route.method, body, as: { ...emu.session, token: '' } });
      const noTenant = await emu.wl(path, { method: route.method, body, tenant: null });
      if (anon.status !== 401) failures.push(`${route.method} ${route.pattern} without bearer → ${anon.status}`);
      if (noTenant.json?.error !== 'missing_tenant') failures.push(`${route.method} ${route.pattern} without tenant → ${noTenant.status}`);
    }
    expect(failures).toEqual([]);
    expect((await emu.call('/sechroom/.well-known/oauth-authorization-server')).status).toBe(200);
  });
});
