import { afterEach, describe, expect, it } from 'vitest';
import type { RunnerStatus } from '../../../shared/status';
import type { Host } from '../../../main/core/host';
import { healthz, startHealthServer, type HealthServer } from '../../../main/headless/health';
import { startHeadlessServer } from '../../../main/headless/server';
import { testLogging } from '../../helpers/test-logger';

let server: HealthServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const status = (state: RunnerStatus['state']) => () => ({ state, label: 'x', reason: 'paired as secret-name runner 1234' }) as unknown as RunnerStatus;

describe('GET /healthz', () => {
  it('answers liveness always and readiness only while the runner does its job, with the state word only', () => {
    expect(healthz(new URL('http://h/healthz'), status('unpaired'))).toEqual({ code: 200, body: '{"status":"unpaired","ready":false}\n' });
    expect(healthz(new URL('http://h/healthz?ready=1'), status('unpaired')).code).toBe(503);
    expect(healthz(new URL('http://h/healthz?ready=1'), status('offline')).code).toBe(503);
    expect(healthz(new URL('http://h/healthz?ready=1'), status('working'))).toEqual({ code: 200, body: '{"status":"working","ready":true}\n' });
  });

  it('the probe listener needs no token, says nothing but the state, and serves nothing else', async () => {
    server = await startHealthServer({ port: 0, host: '127.0.0.1', status: status('idle') });
    const res = await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'idle', ready: true });
    expect(text).not.toContain('secret-name');
    expect((await fetch(`http://127.0.0.1:${server.port}/`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`, { method: 'POST' })).status).toBe(404);
  });

  it('the UI server answers /healthz without a session, and still refuses everything else without it', async () => {
    const host = { status: status('idle'), subscribe: () => () => undefined, invoke: async () => ({ ok: true, value: null }) } as unknown as Host;
    const ui = await startHeadlessServer({ host, staticDir: '/nonexistent', port: 0, log: testLogging().log });
    try {
      const res = await fetch(`${ui.origin}/healthz`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: 'idle', ready: true });
      expect((await fetch(`${ui.origin}/index.html`)).status).toBe(401);
    } finally {
      await ui.close();
    }
  });
});
