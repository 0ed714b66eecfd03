import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
let secret: string;
beforeAll(async () => {
  emu = await launch();
  secret = emu.admin.createRunner().runner_secret;
});
afterAll(() => emu.close());

/** Raw request, so the Host and Origin headers can be anything. */
function rawRequest(path: string, headers: Record<string, string>, method = 'GET'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: emu.port, path, method, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP errors', () => {
  it('answers 404 for unknown routes and 405 with Allow for a wrong method', async () => {
    expect((await emu.call('/api/nothing-here')).json).toMatchObject({ error: 'not_found' });
    const wrong = await emu.call('/api/runner/heartbeat', { method: 'GET', token: secret });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('answers 401 on every runner route without a valid secret', async () => {
    const id = crypto.randomUUID();
    for (const path of [
      '/api/runner/heartbeat',
      '/api/runner/work-orders/claim',
      '/api/runner/unpair',
      `/api/runner/work-orders/${id}/start`,
      `/api/runner/turn-executions/${id}/heartbeat`,
      `/api/runner/work-orders/${id}/result`,
    ]) {
      expect((await emu.call(path, { body: {} })).status, path).toBe(401);
      expect((await emu.call(path, { body: {}, token: 'rsec_wrong' })).status, path).toBe(401);
    }
  });

  it('answers 400 for invalid JSON, __proto__ keys and deep nesting; 415 for a foreign content type', async () => {
    const bad = await emu.call('/api/runner/heartbeat', { token: secret, raw: '{"name":', headers: { 'content-type': 'application/json' } });
    expect([bad.status, bad.json.error]).toEqual([400, 'invalid_json']);
    const proto = await emu.call('/api/runner/heartbeat', {
      token: secret,
      raw: '{"__proto__":{"polluted":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const deep = await emu.call('/api/runner/heartbeat', {
      token: secret,
      raw: `${'['.repeat(500)}${']'.repeat(500)}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deep.json.message).toMatch(/nested deeper/);
    const xml = await emu.call('/api/runner/heartbeat', { token: secret, raw: '<x/>', headers: { 'content-type': 'application/xml' } });
    expect(xml.status).toBe(415);
  });

  it('answers 413 past the 1 MiB body limit and keeps serving', async () => {
    const big = await emu.call('/api/runner/pairing/start', { body: { name: 'x'.repeat(1024 * 1024 + 10), platform: 'linux' } });
    expect(big.status).toBe(413);
    expect((await emu.call('/healthz')).json).toEqual({ ok: true });
  });

  it('refuses foreign Host headers (DNS rebinding) and cross-origin admin calls', async () => {
    expect(await rawRequest('/_emulator/state', { host: 'evil.example:80' })).toBe(403);
    expect(await rawRequest('/_emulator/state', { host: `127.0.0.1:${emu.port}`, origin: 'https://evil.example' })).toBe(403);
    expect(await rawRequest('/_emulator/state', { host: `localhost:${emu.port}` })).toBe(200);
  });

  it('sets security headers on pages', async () => {
    const res = await emu.call('/signin');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
