import { afterEach, expect, it } from 'vitest';
import type { FetchLike } from '../../../../main/core/connectors/http-json';
import { AuthExpiredError, handedRefreshRefusedMessage, sechroomOAuthClient, StaticTokenSource } from '../../../../main/core/planes/sechroom/sechroom-auth';
import { rig, type Rig } from './sechroom-harness';

let r: Rig | null = null;
afterEach(async () => {
  await r?.close();
  r = null;
});

/** A handed-in SECHROOM_TOKEN with its SECHROOM_REFRESH_TOKEN, every token-endpoint call counted. */
function handed(rig: Rig, pair: { access_token: string; refresh_token?: string | undefined }) {
  const tokenCalls: string[] = [];
  const spy: FetchLike = (input, init) => {
    if (new URL(input).pathname.endsWith('/oauth/token')) tokenCalls.push(new URL(input).pathname);
    return fetch(input, init);
  };
  const secrets: string[] = [];
  const oauth = sechroomOAuthClient({ baseUrl: rig.emu.sechroomUrl, clientId: 'runner-tray', fetch: spy });
  const tokens = new StaticTokenSource(pair.access_token, {
    refreshToken: pair.refresh_token ?? '',
    oauth,
    registerSecret: (secret) => secrets.push(secret),
    log: rig.logs.log,
  });
  return { tokens, tokenCalls, secrets, client: rig.client({ tokens }) };
}

// The demo handed the host a bearer nothing refreshed: 15 minutes in (the Work Layer's
// lifetime) every Sechroom call was refused. With its refresh token it goes on.
it('a handed-in bearer with SECHROOM_REFRESH_TOKEN is refreshed once on a 401, again after each expiry, the rotated token used', async () => {
  r = await rig();
  const minted = r.emu.sechroom.mintToken();
  const { tokens, tokenCalls, secrets, client } = handed(r, minted);
  await client.me();
  r.clock.advance(16 * 60_000);
  // Calls failing together with the same token share one refresh (refresh tokens rotate).
  await Promise.all([client.me(), client.me(), client.me()]);
  expect(tokenCalls).toHaveLength(1);
  const first = await tokens.accessToken();
  expect(first).not.toBe(minted.access_token);
  expect(secrets).toContain(first);
  r.clock.advance(16 * 60_000);
  await client.me();
  // The second refresh used the rotated refresh token (the first one works only once).
  expect(tokenCalls).toHaveLength(2);
  expect(await tokens.accessToken()).not.toBe(first);
});

it('a refused SECHROOM_REFRESH_TOKEN ends in the message that says so, and is not tried again', async () => {
  r = await rig();
  const minted = r.emu.sechroom.mintToken();
  const { tokenCalls, client } = handed(r, { access_token: minted.access_token, refresh_token: 'ort_not-a-refresh-token' });
  r.clock.advance(16 * 60_000);
  const error = await client.me().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AuthExpiredError);
  expect(error).toMatchObject({ remedy: 'new_token', message: handedRefreshRefusedMessage(400) });
  expect((error as Error).message).toContain('SECHROOM_REFRESH_TOKEN');
  expect(await client.me().catch((e: unknown) => e)).toMatchObject({ message: handedRefreshRefusedMessage(400) });
  expect(tokenCalls).toHaveLength(1);
});
