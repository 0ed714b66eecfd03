import { afterEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import type { FetchLike } from '../../../../main/core/connectors/http-json';
import {
  AuthExpiredError,
  OAuthTokenSource,
  sechroomOAuthClient,
  sechroomSignIn,
  sechroomTokenAccount,
  StaticTokenSource,
} from '../../../../main/core/planes/sechroom/sechroom-auth';
import { WorkLayerClient } from '../../../../main/core/planes/sechroom/work-layer-client';
import { registrationInput } from '../../../../shared/sechroom-instance-settings';
import { MemoryStore, rig, type Rig } from './sechroom-harness';

let r: Rig | null = null;
afterEach(async () => {
  await r?.close();
  r = null;
});

async function failure(promise: Promise<unknown>): Promise<ConnectorError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectorError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

function oauthSource(rig: Rig, store = new MemoryStore(), fetchImpl?: FetchLike) {
  const oauth = sechroomOAuthClient({ baseUrl: rig.emu.sechroomUrl, clientId: 'runner-tray', ...(fetchImpl ? { fetch: fetchImpl } : {}) });
  const tokens = new OAuthTokenSource({
    baseUrl: rig.emu.sechroomUrl,
    account: 'work',
    store,
    registerSecret: () => {},
    oauth,
    clock: rig.clock,
    log: rig.logs.log,
  });
  return { store, oauth, tokens, client: rig.client({ tokens, ...(fetchImpl ? { fetch: fetchImpl } : {}) }) };
}

describe('Work Layer client against the emulator', () => {
  it('registers, refreshes and deregisters an instance with the bearer, tenant and surface headers', async () => {
    r = await rig();
    const client = r.client();
    const instance = await client.register(registrationInput(r.settings({ capabilityKeys: ['ui'], connectorId: 'conn_codex' })));
    expect(instance).toMatchObject({ instanceKey: 'codex-a', laneId: 'codex-a', status: 'live' });
    expect(r.emu.sechroom.listInstances()[0]).toMatchObject({
      surface: 'runner-tray',
      activationMode: 'Attached',
      runtimeKind: 'Codex',
      claimedCapabilityKeys: ['ui'],
    });
    r.clock.advance(60_000);
    const refreshed = await client.refreshInstance(instance.id, 300);
    expect(refreshed).toMatchObject({ id: instance.id, ttlSeconds: 300, expiresAt: new Date(r.clock.now() + 300_000).toISOString() });
    expect(await client.deregister(instance.id)).toEqual({ id: instance.id, deregistered: true });
    expect(r.emu.sechroom.listInstances()[0]).toMatchObject({ status: 'deregistered' });
  });

  it('types what goes wrong: a wrong tenant is rejected with its code, a 5xx and an empty 2xx are retryable, an unknown lease is not_found', async () => {
    r = await rig();
    const wrongTenant = new WorkLayerClient({ baseUrl: r.emu.sechroomUrl, tenant: 'someone-else', tokens: new StaticTokenSource(r.token) });
    const refused = await failure(wrongTenant.me());
    expect(refused).toMatchObject({ kind: 'rejected', status: 403, code: 'tenant_mismatch', retryable: false });

    const client = r.client();
    const { id } = await client.register(registrationInput(r.settings()));
    r.emu.admin.addFault({ route: '/sechroom/me/executor-instances/*/dispatch-offers', error: { rate: 1, status: 502 }, remaining: 1 });
    expect(await failure(client.offers(id))).toMatchObject({ kind: 'server', status: 502, retryable: true });
    r.emu.admin.addFault({ route: '/sechroom/me/executor-instances/*/dispatch-offers', malformed: { rate: 1, kind: 'empty' }, remaining: 1 });
    expect(await failure(client.offers(id))).toMatchObject({ kind: 'invalid_response', retryable: true, message: expect.stringContaining('is empty') });
    r.emu.admin.addFault({ route: '/sechroom/me/executor-instances/*/dispatch-offers', malformed: { rate: 1, kind: 'wrong_shape' }, remaining: 1 });
    expect(await failure(client.offers(id))).toMatchObject({ kind: 'invalid_response', retryable: true });
    expect(await failure(client.heartbeat('lse_nope', 'sct_x', 1))).toMatchObject({ kind: 'not_found', status: 404 });
    expect(await client.offers(id)).toEqual([]);
  });

  it('answers a SECHROOM_TOKEN 401 with the seed message and never refreshes it', async () => {
    r = await rig();
    const seen: string[] = [];
    const spy: FetchLike = (input, init) => {
      seen.push(new URL(input).pathname);
      return fetch(input, init);
    };
    const client = r.client({ fetch: spy });
    await client.me();
    r.clock.advance(16 * 60_000); // the emulator's 15 min access-token lifetime
    const error = await failure(client.me());
    expect(error).toBeInstanceOf(AuthExpiredError);
    expect(error).toMatchObject({
      remedy: 'new_token',
      message: 'SECHROOM_TOKEN was rejected (401) and cannot be refreshed — mint a fresh bearer and re-export SECHROOM_TOKEN.',
    });
    expect(seen.filter((p) => p.includes('token'))).toEqual([]);
  });

  it('signs in by device code against the Work Layer OAuth with scope sechroom, keeping the tokens under a Sechroom account', async () => {
    r = await rig();
    const { store, oauth, tokens, client } = oauthSource(r);
    const flow = sechroomSignIn({ oauth, clock: r.clock, log: r.logs.log, onState: () => {}, registerSecret: () => {}, tokens });
    await flow.start();
    const waiting = flow.current;
    if (waiting?.phase !== 'waiting') throw new Error(`not waiting: ${JSON.stringify(waiting)}`);
    const operator = r.emu.sechroom.mintToken().operator_id;
    r.emu.admin.decideOAuthDeviceCode(waiting.userCode, operator, 'approve');
    await r.pump(
      () => flow.current?.phase === 'approved',
      1_000,
      () => true,
    );
    expect([...store.entries.keys()]).toEqual([sechroomTokenAccount(r.emu.sechroomUrl, 'work')]);
    expect(await client.me()).toMatchObject({ operatorId: operator, scope: 'sechroom' });
  });

  it('refreshes once on a 401 (one refresh for concurrent calls), stores the rotated tokens, and goes on', async () => {
    r = await rig();
    let refreshes = 0;
    const counting: FetchLike = (input, init) => {
      if (new URL(input).pathname === '/oauth/token') refreshes++;
      return fetch(input, init);
    };
    const { store, tokens, client } = oauthSource(r, new MemoryStore(), counting);
    await tokens.adopt(r.emu.sechroom.mintToken({ ttl_ms: 60_000 }));
    const before = [...store.entries.values()][0];
    r.clock.advance(2 * 60_000);
    const [a, b] = await Promise.all([client.me(), client.me()]);
    expect(a.scope).toBe('sechroom');
    expect(b.scope).toBe('sechroom');
    expect(refreshes).toBe(1);
    expect([...store.entries.values()][0]).not.toBe(before);
  });

  it('says "still 401 after token refresh" when the refreshed token is refused too', async () => {
    r = await rig();
    const always401: FetchLike = (input, init) =>
      new URL(input).pathname.endsWith('/me') ? Promise.resolve(new Response('{"error":"invalid_token"}', { status: 401 })) : fetch(input, init);
    const { tokens, client } = oauthSource(r, new MemoryStore(), always401);
    await tokens.adopt(r.emu.sechroom.mintToken());
    expect(await failure(client.me())).toMatchObject({
      remedy: 'sign_in',
      message: 'GET /me still 401 after token refresh — re-authenticate (`sechroom login`).',
    });
  });

  it('asks to sign in again, with the seed messages, when the refresh is refused or there is no refresh token; the dead grant is dropped', async () => {
    r = await rig();
    const refused = oauthSource(r);
    await refused.tokens.adopt({ ...r.emu.sechroom.mintToken({ ttl_ms: 1_000 }), refresh_token: 'not-a-refresh-token' });
    r.clock.advance(5_000);
    const error = await failure(refused.client.me());
    expect(error).toMatchObject({ remedy: 'sign_in', message: 'Token refresh failed (400). Run `sechroom login --account work` again.' });
    expect(refused.store.entries.size).toBe(0);
    expect(await failure(refused.client.me())).toMatchObject({ message: 'Token refresh failed (400). Run `sechroom login --account work` again.' });

    const bare = oauthSource(r);
    const { refresh_token: _drop, ...noRefresh } = r.emu.sechroom.mintToken({ ttl_ms: 1_000 });
    await bare.tokens.adopt(noRefresh);
    r.clock.advance(5_000);
    expect(await failure(bare.client.me())).toMatchObject({
      message: 'Session for account "work" was rejected (401) and has no refresh token. Run `sechroom login --account work` again.',
    });
  });

  it('keeps the grant when the token endpoint cannot be reached (a network fault is not a verdict on the sign-in)', async () => {
    r = await rig();
    const down: FetchLike = (input, init) => (new URL(input).pathname === '/oauth/token' ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init));
    const { store, tokens, client } = oauthSource(r, new MemoryStore(), down);
    await tokens.adopt(r.emu.sechroom.mintToken({ ttl_ms: 1_000 }));
    r.clock.advance(5_000);
    expect(await failure(client.me())).toMatchObject({ kind: 'network', retryable: true });
    expect(store.entries.size).toBe(1);
  });
});
