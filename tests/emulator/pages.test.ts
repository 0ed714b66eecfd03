import { afterEach, describe, expect, it } from 'vitest';
import { csrfFrom, getPage, launch, postForm, signIn } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterEach(() => emu?.close());

describe('server-rendered pages', () => {
  it('redirects to the dev sign-in with a same-site next, and never to another site', async () => {
    emu = await launch();
    const device = await getPage(emu.url, '/device?code=BCDF-GHJK');
    expect([device.status, device.headers.get('location')]).toEqual([303, '/signin?next=%2Fdevice%3Fcode%3DBCDF-GHJK']);
    const op = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    for (const next of ['//evil.example/x', 'https://evil.example', '/\\evil.example']) {
      const res = await fetch(`${emu.url}/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ operator_id: op.id, next }),
        redirect: 'manual',
      });
      expect(res.headers.get('location')).toBe('/');
    }
  });

  it('signs in a typed name and role, and signs out', async () => {
    emu = await launch();
    const res = await fetch(`${emu.url}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ name: 'Grace', role: 'member', next: '/device' }),
      redirect: 'manual',
    });
    expect(res.headers.get('location')).toBe('/device');
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax/);
    expect(emu.admin.listOperators().map((o) => [o.name, o.role])).toEqual([['Grace', 'member']]);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const page = await getPage(emu.url, '/device', cookie);
    expect(page.text).toContain('Signed in as <strong>Grace</strong>');
    expect((await postForm(emu.url, '/signout', cookie, { csrf: 'nope' })).status).toBe(403);
    expect((await postForm(emu.url, '/signout', cookie, { csrf: csrfFrom(page.text) })).status).toBe(303);
    expect((await getPage(emu.url, '/device', cookie)).status).toBe(303);
    const bad = await fetch(`${emu.url}/signin`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'role=king' });
    expect(bad.status).toBe(400);
  });

  it('refuses a decision without the form token, from another origin, or for a code already decided', async () => {
    emu = await launch();
    const op = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    const start = await emu.call('/api/runner/pairing/start', { body: { name: 'box', platform: 'linux' } });
    const cookie = await signIn(emu.url, op.id);
    const page = await getPage(emu.url, `/device?code=${start.json.user_code}`, cookie);
    expect(page.text).toContain('Pair this runner?');
    const code = start.json.user_code as string;
    expect((await postForm(emu.url, '/device/decision', cookie, { code, decision: 'approve', csrf: 'x' })).status).toBe(403);
    const foreign = await fetch(`${emu.url}/device/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: 'https://evil.example' },
      body: new URLSearchParams({ code, decision: 'approve', csrf: csrfFrom(page.text) }),
    });
    expect(foreign.status).toBe(403);
    expect((await postForm(emu.url, '/device/decision', cookie, { code, decision: 'approve', csrf: csrfFrom(page.text) })).text).toContain('Runner paired');
    expect(emu.admin.listPairings()[0]).toMatchObject({ status: 'approved', decided_by: op.id, tenant_id: op.tenant_id });
    expect((await postForm(emu.url, '/device/decision', cookie, { code, decision: 'deny', csrf: csrfFrom(page.text) })).status).toBe(409);
    expect((await getPage(emu.url, `/device?code=${code}`, cookie)).text).toContain('already used (approved)');
  });

  it('rate-limits the operator device page too, and a reset forgives', async () => {
    emu = await launch();
    const op = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    const cookie = await signIn(emu.url, op.id);
    for (let i = 0; i < 5; i++) expect((await getPage(emu.url, '/oauth/device?code=ZZZZ-ZZZZ', cookie)).status).toBe(400);
    const limited = await getPage(emu.url, '/oauth/device?code=ZZZZ-ZZZZ', cookie);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('900');
    emu.admin.reset();
    const again = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    expect((await getPage(emu.url, '/oauth/device', await signIn(emu.url, again.id))).status).toBe(200);
  });

  it('answers 404 for a confirmation of another tenant or an unknown id', async () => {
    emu = await launch();
    const op = emu.admin.createOperator({ name: 'Ada', role: 'tenant_admin' });
    const token = emu.admin.issueOperatorTokens(op.id).access_token;
    expect((await emu.call(`/api/confirmations/${crypto.randomUUID()}`, { token })).status).toBe(404);
    expect((await getPage(emu.url, `/confirm/${crypto.randomUUID()}`, await signIn(emu.url, op.id))).status).toBe(404);
  });
});
