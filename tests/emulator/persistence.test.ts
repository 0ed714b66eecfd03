import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../emulator/index';
import { api } from './helpers';

const dir = mkdtempSync(join(tmpdir(), 'emulator-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('persistence', () => {
  it('keeps runners, pairings, work, results, requests and tokens across a restart, storing only hashes', async () => {
    const db = join(dir, 'state.sqlite');
    const first = await startEmulator({ db, seed: 'demo', config: { pairingIntervalSec: 0 } });
    const start = (await api(first.url, '/api/runner/pairing/start', { body: { name: 'kept', platform: 'linux' } })).json;
    first.admin.approvePairing(start.user_code);
    const creds = (await api(first.url, '/api/runner/pairing/claim', { body: { pairing_id: start.pairing_id } })).json;
    await api(first.url, '/api/runner/heartbeat', { token: creds.runner_secret, body: { telemetry: { max_sessions: 2, model_account: { alias: 'team' } } } });
    const done = first.admin.enqueueWorkOrder({ prompt: 'first' });
    const pending = first.admin.enqueueTurnExecution({ prompt: 'later' });
    const claimed = (await api(first.url, '/api/runner/work-orders/claim', { token: creds.runner_secret, body: {} })).json.turn_execution;
    const wo = (await api(first.url, '/api/runner/work-orders/claim', { token: creds.runner_secret, body: {} })).json.work_order;
    expect(wo.id).toBe(done.id);
    await api(first.url, `/api/runner/work-orders/${wo.id}/result`, { token: creds.runner_secret, body: { status: 'succeeded', summary: 'ok' } });
    const admin = first.admin.listOperators().find((o) => o.role === 'tenant_admin')!;
    const tokens = first.admin.issueOperatorTokens(admin.id);
    first.admin.setConfirmationMode(true);
    await first.close();

    const second = await startEmulator({ db, seed: 'demo' });
    try {
      expect((await api(second.url, '/api/runner/heartbeat', { token: creds.runner_secret, body: {} })).status).toBe(200);
      expect(second.admin.listPairings()[0]).toMatchObject({ status: 'claimed', runner_id: creds.runner_id });
      expect(second.admin.getUnit(pending.id)).toMatchObject({ status: 'claimed', runner_id: creds.runner_id });
      expect(claimed.id).toBe(pending.id);
      expect(second.admin.listResults()).toHaveLength(1);
      expect(second.admin.listBuildRequests()).toHaveLength(6); // not seeded twice
      expect(second.admin.confirmationMode()).toBe(true);
      const list = await api(second.url, '/api/commands/software_factory.request.list', { token: tokens.access_token, body: { input: {} } });
      expect(list.json.output.requests).toHaveLength(6);
      const mcp = await api(second.url, '/mcp', { token: claimed.mcp.token, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
      expect(mcp.status).toBe(200);
    } finally {
      await second.close();
    }
    const bytes = Buffer.concat(readdirSync(dir).map((f) => readFileSync(join(dir, f)))).toString('latin1');
    for (const secret of [creds.runner_secret, tokens.access_token, tokens.refresh_token!, claimed.mcp.token]) {
      expect(bytes.includes(secret)).toBe(false);
    }
  });
});
