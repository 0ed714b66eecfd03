import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../main/core/connectors/errors';
import type { RefreshOutcome } from '../../../main/core/sign-in/oauth-client';
import { OperatorSession } from '../../../main/core/operator/operator-session';
import { TokenVault } from '../../../main/core/sign-in/token-vault';
import type { SecretStore } from '../../../main/core/secrets/secret-store';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

const URL_ = 'http://127.0.0.1:7457';
const IDENTITY = { operator_id: 'o1', tenant_id: 't1', name: 'Ada', role: 'tenant_admin' as const };

class MemoryStore implements SecretStore {
  readonly backend = 'file' as const;
  readonly entries = new Map<string, string>();
  async get(account: string) {
    return this.entries.get(account) ?? null;
  }
  async set(account: string, secret: string) {
    this.entries.set(account, secret);
  }
  async delete(account: string) {
    return this.entries.delete(account);
  }
}

async function setup(refresh: () => Promise<RefreshOutcome>, initial: { refreshToken?: string | null } = {}) {
  const store = new MemoryStore();
  const registered: string[] = [];
  const vault = new TokenVault(store, (s) => registered.push(s));
  await vault.save(URL_, {
    v: 1,
    accessToken: 'oat_1',
    refreshToken: initial.refreshToken === undefined ? 'ort_1' : initial.refreshToken,
    expiresAt: 0,
    identity: IDENTITY,
  });
  let refreshes = 0;
  let changes = 0;
  const session = new OperatorSession({
    clock: new FakeClock(),
    log: testLogging().log,
    vault,
    controlPlaneUrl: URL_,
    oauth: {
      refresh: async () => {
        refreshes++;
        return refresh();
      },
    },
    onChange: () => {
      changes++;
    },
  });
  await session.load();
  return { session, store, registered, refreshes: () => refreshes, changes: () => changes };
}

const unauthorized = () => new ConnectorError('unauthorized', '401', 401, 'invalid_token');
const rotated: RefreshOutcome = { kind: 'tokens', tokens: { access_token: 'oat_2', token_type: 'Bearer', expires_in: 900, refresh_token: 'ort_2' } };

describe('operator session: refresh once on a 401', () => {
  it('refreshes, retries once with the new token, and stores the rotated pair', async () => {
    const s = await setup(async () => rotated);
    const tokensSeen: string[] = [];
    const value = await s.session.authorized(async (token) => {
      tokensSeen.push(token);
      if (token === 'oat_1') throw unauthorized();
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(tokensSeen).toEqual(['oat_1', 'oat_2']);
    expect(s.refreshes()).toBe(1);
    expect(JSON.parse(s.store.entries.get('operator:http://127.0.0.1:7457')!)).toMatchObject({
      accessToken: 'oat_2',
      refreshToken: 'ort_2',
      identity: IDENTITY,
    });
    expect(s.registered).toEqual(expect.arrayContaining(['oat_1', 'ort_1', 'oat_2', 'ort_2']));
  });

  it('shares one refresh between calls that failed with the same token (refresh tokens rotate)', async () => {
    let release: (o: RefreshOutcome) => void = () => {};
    const s = await setup(() => new Promise((resolve) => (release = resolve)));
    const call = (token: string) => (token === 'oat_1' ? Promise.reject(unauthorized()) : Promise.resolve(token));
    const all = Promise.all([s.session.authorized(call), s.session.authorized(call), s.session.authorized(call)]);
    await new Promise((r) => setTimeout(r, 10));
    release(rotated);
    expect(await all).toEqual(['oat_2', 'oat_2', 'oat_2']);
    expect(s.refreshes()).toBe(1);
    // A later call that still held the old token uses the new one without refreshing.
    expect(await s.session.authorized(call)).toBe('oat_2');
    expect(s.refreshes()).toBe(1);
  });

  it('asks to sign in again when the refresh is refused, and deletes the tokens', async () => {
    const s = await setup(async () => ({ kind: 'invalid_grant', message: 'the control plane refused the refresh (invalid_grant)' }));
    await expect(s.session.authorized(async () => Promise.reject(unauthorized()))).rejects.toMatchObject({
      code: 'sign_in_again',
      message: expect.stringMatching(/Sign in again\.$/),
    });
    expect(s.session.state).toMatchObject({ state: 'sign_in_again' });
    expect(s.store.entries.size).toBe(0);
    await expect(s.session.authorized(async () => 'x')).rejects.toMatchObject({ code: 'sign_in_again' });
  });

  it('asks to sign in again when the renewed token is refused too (no second refresh)', async () => {
    const s = await setup(async () => rotated);
    await expect(s.session.authorized(async () => Promise.reject(unauthorized()))).rejects.toMatchObject({ code: 'sign_in_again' });
    expect(s.refreshes()).toBe(1);
  });

  it('asks to sign in again at once when there is no refresh token', async () => {
    const s = await setup(async () => rotated, { refreshToken: null });
    await expect(s.session.authorized(async () => Promise.reject(unauthorized()))).rejects.toMatchObject({ code: 'sign_in_again' });
    expect(s.refreshes()).toBe(0);
  });

  it('keeps the session when the refresh fails for network reasons', async () => {
    const s = await setup(async () => Promise.reject(new ConnectorError('network', 'ECONNREFUSED')));
    await expect(s.session.authorized(async () => Promise.reject(unauthorized()))).rejects.toMatchObject({ kind: 'network' });
    expect(s.session.state).toMatchObject({ state: 'signed_in' });
    expect(s.store.entries.size).toBe(1);
  });

  it('does not refresh on errors other than 401', async () => {
    const s = await setup(async () => rotated);
    await expect(s.session.authorized(async () => Promise.reject(new ConnectorError('server', '500', 500)))).rejects.toMatchObject({ kind: 'server' });
    expect(s.refreshes()).toBe(0);
  });

  it('treats a damaged stored entry as signed out and removes it', async () => {
    const store = new MemoryStore();
    store.entries.set('operator:http://127.0.0.1:7457', '{"v":1,"accessToken":');
    const logging = testLogging();
    const session = new OperatorSession({
      clock: new FakeClock(),
      log: logging.log,
      vault: new TokenVault(store, () => {}),
      controlPlaneUrl: URL_,
      oauth: { refresh: async () => rotated },
      onChange: () => {},
    });
    await session.load();
    expect(session.state).toEqual({ state: 'signed_out' });
    expect(store.entries.size).toBe(0);
    expect(logging.entries.map((e) => e.msg)).toContain('the stored operator sign-in was unreadable and was removed; sign in again');
  });
});
