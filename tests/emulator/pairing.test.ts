import { afterEach, describe, expect, it } from 'vitest';
import { PairingClaimErrorSchema, PairingClaimResponseSchema, PairingStartResponseSchema } from '../../shared/protocol';
import { fakeClock, launch } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterEach(() => emu?.close());

const startBody = { name: 'studio-mac', platform: 'darwin', runner_version: '0.1.0', hostname: 'studio.local' };

async function startPairing() {
  const res = await emu.call('/api/runner/pairing/start', { body: startBody });
  expect(res.status).toBe(200);
  return PairingStartResponseSchema.parse(res.json);
}

const poll = (pairing_id: string) => emu.call('/api/runner/pairing/claim', { body: { pairing_id } });

describe('runner pairing by device code', () => {
  it('issues a grouped base-20 code with verification URIs', async () => {
    emu = await launch();
    const p = await startPairing();
    expect(p.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(p.verification_uri).toBe(`${emu.url}/device`);
    expect(p.verification_uri_complete).toBe(`${emu.url}/device?code=${p.user_code}`);
    expect(p.expires_in).toBe(600);
    expect(p.interval).toBe(5);
    const record = emu.admin.listPairings()[0]!;
    expect(record).toMatchObject({ name: 'studio-mac', platform: 'darwin', hostname: 'studio.local', source_ip: '127.0.0.1', status: 'pending' });
  });

  it('answers pending, then slow_down (+5 s) when polled faster than the interval', async () => {
    const clock = fakeClock();
    emu = await launch({ now: clock.now });
    const p = await startPairing();
    expect((await poll(p.pairing_id)).json).toMatchObject({ error: 'authorization_pending' });
    clock.advance(1000);
    const fast = await poll(p.pairing_id);
    expect(fast.status).toBe(400);
    expect(PairingClaimErrorSchema.parse(fast.json)).toMatchObject({ error: 'slow_down', interval: 10 });
    clock.advance(6000); // 6 s is now too fast: the interval became 10 s
    expect((await poll(p.pairing_id)).json.error).toBe('slow_down');
    clock.advance(15_000);
    expect((await poll(p.pairing_id)).json.error).toBe('authorization_pending');
  });

  it('hands out credentials once after approval by a code typed in any case, without the dash', async () => {
    emu = await launch({ config: { pairingIntervalSec: 0 } });
    const p = await startPairing();
    emu.admin.approvePairing(p.user_code.replace('-', '').toLowerCase());
    const res = await poll(p.pairing_id);
    expect(res.status).toBe(200);
    const creds = PairingClaimResponseSchema.parse(res.json);
    expect(creds).toMatchObject({ tenant_id: emu.admin.defaultTenantId(), name: 'studio-mac' });
    expect(creds.runner_secret.length).toBeGreaterThan(40);
    expect((await emu.call('/api/runner/heartbeat', { token: creds.runner_secret, body: {} })).status).toBe(200);
    expect((await poll(p.pairing_id)).json.error).toBe('expired_token');
    expect(JSON.stringify(emu.admin.listRunners())).not.toContain(creds.runner_secret);
    expect(JSON.stringify(emu.admin.listEvents())).not.toContain(creds.runner_secret);
  });

  it('answers access_denied after a deny and expired_token after expiry', async () => {
    const clock = fakeClock();
    emu = await launch({ now: clock.now, config: { pairingIntervalSec: 0 } });
    const denied = await startPairing();
    emu.admin.denyPairing(denied.user_code);
    expect((await poll(denied.pairing_id)).json.error).toBe('access_denied');
    expect(() => emu.admin.approvePairing(denied.user_code)).toThrow(/denied/);

    const late = await startPairing();
    clock.advance(600_001);
    expect((await poll(late.pairing_id)).json.error).toBe('expired_token');
    expect(emu.admin.listPairings().find((r) => r.id === late.pairing_id)?.status).toBe('expired');
    expect((await poll(crypto.randomUUID())).json.error).toBe('expired_token');
  });

  it('rejects bad input with a 400 naming the field', async () => {
    emu = await launch();
    const res = await emu.call('/api/runner/pairing/start', { body: { name: '', platform: 'beos' } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/name/);
    expect(res.json.message).toMatch(/platform/);
    expect((await emu.call('/api/runner/pairing/claim', { body: {} })).json.message).toMatch(/pairing_id/);
  });

  it('revokes the secret on unpair (runner or admin), after which runner calls get 401', async () => {
    emu = await launch();
    const a = emu.admin.createRunner({ name: 'a' });
    expect((await emu.call('/api/runner/unpair', { token: a.runner_secret, body: {} })).json).toEqual({ unpaired: true });
    const after = await emu.call('/api/runner/heartbeat', { token: a.runner_secret, body: {} });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toBe('Bearer');
    expect((await emu.call('/api/runner/unpair', { token: a.runner_secret, body: {} })).status).toBe(401);
    const b = emu.admin.createRunner({ name: 'b' });
    emu.admin.revokeRunner(b.runner_id);
    expect((await emu.call('/api/runner/work-orders/claim', { token: b.runner_secret, body: {} })).status).toBe(401);
  });
});
