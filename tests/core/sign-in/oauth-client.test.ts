import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../main/core/connectors/errors';
import { OAuthClient } from '../../../main/core/sign-in/oauth-client';
import { form, startStub, type StubServer } from '../operator/stub-server';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(async () => {
  await stub.close();
});

const REFRESH = 'ort_refresh-token-that-must-never-show-0123456789';

function metadata(overrides: Record<string, unknown> = {}) {
  return {
    issuer: stub.origin,
    device_authorization_endpoint: `${stub.origin}/oauth/device_authorization`,
    token_endpoint: `${stub.origin}/oauth/token`,
    revocation_endpoint: `${stub.origin}/oauth/revoke`,
    scopes_supported: ['forge'],
    ...overrides,
  };
}

function client(): OAuthClient {
  return new OAuthClient({ baseUrl: stub.origin, clientId: 'runner-tray', knownSecrets: () => [REFRESH] });
}

async function rejection(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

beforeEach(() => {
  stub.routes.clear();
  stub.seen.length = 0;
  stub.routes.set('GET /.well-known/oauth-authorization-server', { status: 200, json: metadata() });
});

describe('OAuth client: discovery', () => {
  it('reads the metadata once and uses its endpoints', async () => {
    stub.routes.set('POST /oauth/device_authorization', {
      status: 200,
      json: { device_code: 'odc_x', user_code: 'BCDF-GHJK', verification_uri: `${stub.origin}/oauth/device`, expires_in: 600, interval: 5 },
    });
    const c = client();
    const started = await c.startDeviceAuthorization();
    expect(started).toMatchObject({ user_code: 'BCDF-GHJK', interval: 5 });
    await c.startDeviceAuthorization();
    expect(stub.seen.filter((r) => r.path.startsWith('/.well-known'))).toHaveLength(1);
    const sent = stub.seen.find((r) => r.path === '/oauth/device_authorization')!;
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(form(sent.body)).toEqual({ client_id: 'runner-tray', scope: 'forge' });
  });

  it.each([
    ['a wrong shape', { status: 200, json: { issuer: 'x' } }, 'invalid_response'],
    ['invalid JSON', { status: 200, raw: '{"issuer": ' }, 'invalid_response'],
    ['a 500', { status: 500, raw: 'boom' }, 'server'],
    ['a 404', { status: 404, json: { error: 'not_found' } }, 'not_found'],
    ['a dropped connection', { drop: true as const }, 'network'],
  ])('fails cleanly on %s', async (_name, answer, kind) => {
    stub.routes.set('GET /.well-known/oauth-authorization-server', answer);
    expect((await rejection(client().discover())).kind).toBe(kind);
  });

  it('refuses endpoints that would send a token to another origin in the clear, or are not web addresses', async () => {
    stub.routes.set('GET /.well-known/oauth-authorization-server', { status: 200, json: metadata({ token_endpoint: 'http://evil.example/token' }) });
    expect((await rejection(client().discover())).message).toContain('token_endpoint must be an https address');
    stub.routes.set('GET /.well-known/oauth-authorization-server', { status: 200, json: metadata({ revocation_endpoint: 'javascript:alert(1)' }) });
    expect((await rejection(client().discover())).kind).toBe('invalid_response');
    stub.routes.set('GET /.well-known/oauth-authorization-server', { status: 200, json: metadata({ token_endpoint: 'https://auth.example/token' }) });
    await expect(client().discover()).resolves.toMatchObject({ token_endpoint: 'https://auth.example/token' });
  });

  it('refuses a verification address that is not a web address', async () => {
    stub.routes.set('POST /oauth/device_authorization', {
      status: 200,
      json: { device_code: 'odc_x', user_code: 'BCDF-GHJK', verification_uri: 'javascript:alert(1)', expires_in: 600, interval: 5 },
    });
    expect((await rejection(client().startDeviceAuthorization())).kind).toBe('invalid_response');
  });
});

describe('OAuth client: device token polls', () => {
  const poll = async (answer: Parameters<StubServer['routes']['set']>[1]) => {
    stub.routes.set('POST /oauth/token', answer);
    return client().pollDeviceToken('odc_device');
  };

  it('maps every RFC 8628 answer', async () => {
    expect(await poll({ status: 400, json: { error: 'authorization_pending' } })).toEqual({ kind: 'pending' });
    expect(await poll({ status: 400, json: { error: 'slow_down', interval: 10 } })).toEqual({ kind: 'slow_down', intervalSeconds: 10 });
    expect(await poll({ status: 400, json: { error: 'slow_down' } })).toEqual({ kind: 'slow_down' });
    expect(await poll({ status: 400, json: { error: 'access_denied' } })).toEqual({ kind: 'denied' });
    expect(await poll({ status: 400, json: { error: 'expired_token' } })).toEqual({ kind: 'expired' });
    const tokens = await poll({ status: 200, json: { access_token: 'oat_a', token_type: 'bearer', expires_in: 900, refresh_token: 'ort_r' } });
    expect(tokens).toMatchObject({ kind: 'tokens', tokens: { access_token: 'oat_a', refresh_token: 'ort_r' } });
    const sent = form(stub.seen.at(-1)!.body);
    expect(sent).toEqual({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'odc_device', client_id: 'runner-tray' });
  });

  it.each([
    ['a token of another type', { status: 200, json: { access_token: 'a', token_type: 'mac', expires_in: 900 } }, 'invalid_response'],
    ['a token without expiry', { status: 200, json: { access_token: 'a', token_type: 'Bearer' } }, 'invalid_response'],
    ['invalid JSON', { status: 200, raw: 'not json' }, 'invalid_response'],
    ['an unknown OAuth error', { status: 400, json: { error: 'invalid_grant' } }, 'rejected'],
    ['a 400 without a body', { status: 400 }, 'rejected'],
    ['a 503', { status: 503, raw: '' }, 'server'],
    ['a dropped connection', { drop: true as const }, 'network'],
  ])('fails cleanly on %s', async (_name, answer, kind) => {
    expect((await rejection(poll(answer))).kind).toBe(kind);
  });
});

describe('OAuth client: refresh and revocation', () => {
  it('refreshes, and tells a dead grant apart from network trouble', async () => {
    stub.routes.set('POST /oauth/token', { status: 200, json: { access_token: 'oat_b', token_type: 'Bearer', expires_in: 60, refresh_token: 'ort_c' } });
    expect(await client().refresh(REFRESH)).toMatchObject({ kind: 'tokens', tokens: { access_token: 'oat_b' } });
    expect(form(stub.seen.at(-1)!.body)).toMatchObject({ grant_type: 'refresh_token', refresh_token: REFRESH });
    stub.routes.set('POST /oauth/token', { status: 400, json: { error: 'invalid_grant', error_description: 'revoked' } });
    expect(await client().refresh(REFRESH)).toMatchObject({ kind: 'invalid_grant' });
    stub.routes.set('POST /oauth/token', { status: 401, json: { error: 'invalid_client' } });
    expect(await client().refresh(REFRESH)).toMatchObject({ kind: 'invalid_grant' });
    stub.routes.set('POST /oauth/token', { drop: true });
    expect((await rejection(client().refresh(REFRESH))).kind).toBe('network');
    stub.routes.set('POST /oauth/token', { status: 200, json: { access_token: 'oat_b' } });
    expect((await rejection(client().refresh(REFRESH))).kind).toBe('invalid_response');
  });

  it('never puts a token into an error message', async () => {
    stub.routes.set('POST /oauth/token', { status: 500, raw: `internal error while refreshing ${REFRESH}` });
    const error = await rejection(client().refresh(REFRESH));
    expect(error.kind).toBe('server');
    expect(error.message).not.toContain(REFRESH);
  });

  it('revokes with a hint (RFC 7009), and says so when the server offers no revocation', async () => {
    stub.routes.set('POST /oauth/revoke', { status: 200 });
    expect(await client().revoke(REFRESH, 'refresh_token')).toBe(true);
    expect(form(stub.seen.at(-1)!.body)).toEqual({ token: REFRESH, token_type_hint: 'refresh_token', client_id: 'runner-tray' });
    stub.routes.set('POST /oauth/revoke', { status: 503 });
    expect((await rejection(client().revoke(REFRESH, 'refresh_token'))).kind).toBe('server');
    stub.routes.set('GET /.well-known/oauth-authorization-server', { status: 200, json: metadata({ revocation_endpoint: undefined }) });
    expect(await client().revoke(REFRESH, 'refresh_token')).toBe(false);
  });
});
