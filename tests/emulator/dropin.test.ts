import { afterEach, describe, expect, it } from 'vitest';
import { api, claim, launch, runnerWith, segment } from './helpers';

let emu: Awaited<ReturnType<typeof launch>> | null = null;
afterEach(async () => {
  await emu?.close();
  emu = null;
});

describe('emulator: what a seed-era runner and ours send', () => {
  it('hands a runner only units its claim says it can run; without the field, anything', async () => {
    emu = await launch();
    const r = await runnerWith(emu, { max_sessions: 4, alias: 'team' });
    const claudeUnit = emu.admin.enqueueTurnExecution({ brain: 'claude' });
    const autoUnit = emu.admin.enqueueTurnExecution({ brain: 'auto' });
    const first = await claim(emu, r.secret, { runtimes: ['codex'] });
    expect(first.json.turn_execution.id).toBe(autoUnit.id);
    expect((await claim(emu, r.secret, { runtimes: ['codex'] })).status).toBe(204);
    expect((await claim(emu, r.secret, { runtimes: [] })).status).toBe(204);
    expect(emu.admin.getUnit(claudeUnit.id)?.status).toBe('queued');
    // A seed client says nothing: the old behaviour.
    expect((await claim(emu, r.secret, {})).json.turn_execution.id).toBe(claudeUnit.id);
    expect((await claim(emu, r.secret, { runtimes: ['gemini'] })).status).toBe(400);
  });

  it('plays a server that ignores the field', async () => {
    emu = await launch({ config: { honourClaimRuntimes: false } });
    const r = await runnerWith(emu);
    const unit = emu.admin.enqueueTurnExecution({ brain: 'claude' });
    expect((await claim(emu, r.secret, { runtimes: ['codex'] })).json.turn_execution.id).toBe(unit.id);
  });

  it("accepts the seed's id field on start and result, and refuses one that names another unit", async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    const unit = emu.admin.enqueueWorkOrder({ brain: 'claude' });
    const claimed = (await claim(emu, r.secret)).json.work_order;
    const path = `/api/runner/${segment('work_order')}/${claimed.id}`;
    expect((await api(emu.url, `${path}/start`, { token: r.secret, body: { work_order_id: 'someone-else' } })).status).toBe(400);
    expect((await api(emu.url, `${path}/start`, { token: r.secret, body: { turn_execution_id: claimed.id } })).status).toBe(400);
    expect((await api(emu.url, `${path}/start`, { token: r.secret, body: { work_order_id: unit.id } })).status).toBe(200);
    const result = await api(emu.url, `${path}/result`, {
      token: r.secret,
      body: { status: 'succeeded', summary: 'ok', work_order_id: unit.id, idempotency_key: `${unit.id}:1` },
    });
    expect(result.status).toBe(200);
  });

  it('pairs by user code: a code from the web page, and the signed-in runner.pairing.start', async () => {
    emu = await launch({ seed: 'demo', config: { pairingIntervalSec: 0 } });
    const issued = emu.admin.issuePairingCode({ name: '' });
    const creds = await api(emu.url, '/api/runner/pairing/claim', { body: { user_code: issued.user_code.toLowerCase(), name: 'box', platform: 'linux' } });
    expect(creds.status).toBe(200);
    expect(emu.admin.listRunners().find((x) => x.id === creds.json.runner_id)).toMatchObject({ name: 'box', platform: 'linux' });
    // Once only.
    expect((await api(emu.url, '/api/runner/pairing/claim', { body: { user_code: issued.user_code } })).json.error).toBe('expired_token');
    expect((await api(emu.url, '/api/runner/pairing/claim', { body: { user_code: 'nope' } })).json.error).toBe('expired_token');

    const admin = emu.admin.listOperators().find((o) => o.role === 'tenant_admin')!;
    const token = emu.admin.issueOperatorTokens(admin.id).access_token;
    const started = await api(emu.url, '/api/commands/runner.pairing.start', { token, body: { input: { name: 'cli', platform: 'darwin' } } });
    const code = started.json.output.user_code as string;
    const claimed = await api(emu.url, '/api/runner/pairing/claim', { body: { user_code: code } });
    expect(claimed.json).toMatchObject({ tenant_id: admin.tenant_id, name: 'cli' });
  });
});
