import { afterEach, describe, expect, it } from 'vitest';
import { ClaimResponseSchema, HeartbeatResponseSchema, LeaseHeartbeatResponseSchema, StartResponseSchema } from '../../shared/protocol';
import { api, claim, claimAndStart, launch, runnerWith } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterEach(() => emu?.close());

const telemetry = {
  os: { platform: 'linux', release: '6.8', arch: 'x64' },
  runner_version: '0.1.0',
  cpu: { count: 8, load_percent: 12.5 },
  memory: { total_bytes: 16e9, free_bytes: 8e9, process_rss_bytes: 1e8 },
  active_sessions: 0,
  max_sessions: 2,
  runtimes: ['claude'],
  model_account: { alias: ' team ', state: 'ok' },
};

describe('heartbeat', () => {
  it('records the capacity observation and answers the long-poll hint', async () => {
    emu = await launch();
    const r = emu.admin.createRunner({ name: 'box' });
    const res = await emu.call('/api/runner/heartbeat', {
      token: r.runner_secret,
      body: {
        name: 'box',
        runner_version: '0.1.0',
        paused: false,
        capabilities: { claude: { installed: true, version: '2.1.197' }, codex: { installed: false } },
        telemetry,
      },
    });
    const hb = HeartbeatResponseSchema.parse(res.json);
    expect(hb).toMatchObject({ runner_id: r.runner_id, next_heartbeat_ms: 30_000, claim: { long_poll_max_ms: 60_000, carries_heartbeat: true } });
    expect(Date.parse(hb.server_time)).not.toBeNaN();
    const [obs] = emu.admin.listHeartbeats({ runner_id: r.runner_id });
    expect(obs).toMatchObject({ cpu_count: 8, max_sessions: 2, model_account_alias: 'team', model_account_state: 'ok', runtimes: ['claude'] });
    expect((await emu.call('/api/runner/heartbeat', { token: r.runner_secret, body: { telemetry: { cpu: { count: 'eight' } } } })).json.message).toMatch(
      /telemetry\.cpu\.count/,
    );
  });
});

describe('claim, start, lease heartbeat, result', () => {
  it('answers 204 when there is nothing (or {} when configured)', async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    expect((await claim(emu, r.secret)).status).toBe(204);
    emu.admin.setConfig({ emptyClaim: 'empty_object' });
    const res = await claim(emu, r.secret);
    expect([res.status, res.json]).toEqual([200, {}]);
  });

  it('hands out a unit with every protocol field and a short-lived unit-scoped MCP token', async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    const queued = emu.admin.enqueueTurnExecution({
      brain: 'claude',
      prompt: 'Say hello',
      seat: { id: 'seat-1', name: 'Builder' },
      charter_ref: { seat_id: 'seat-1' },
      user_id: 'user-1',
      session_id: 'session-1',
      aicos: { session_id: 'session-1' },
      timeout_ms: 60_000,
      lease: { heartbeat_ms: 2_000 },
      extra: { surprise: 'tolerate me' },
    });
    const res = await claim(emu, r.secret);
    const unit = ClaimResponseSchema.parse(res.json).turn_execution!;
    expect(unit).toMatchObject({
      id: queued.id,
      kind: 'turn_execution',
      brain: 'claude',
      prompt: 'Say hello',
      seat: { id: 'seat-1', name: 'Builder' },
      user_id: 'user-1',
      session_id: 'session-1',
      aicos: { session_id: 'session-1' },
      timeout_ms: 60_000,
      attempt: 1,
    });
    expect(res.json.turn_execution.surprise).toBe('tolerate me');
    expect(unit.mcp?.url).toBe('/mcp');
    expect(unit.mcp?.token).toMatch(/^mcp_/);
    expect(unit.lease?.heartbeat_ms).toBe(2_000);
    expect(Date.parse(unit.mcp!.expires_at!) - Date.now()).toBeLessThan(60_000 + 61_000);
    expect(emu.admin.getUnit(queued.id)).toMatchObject({ status: 'claimed', runner_id: r.runner_id });
  });

  it('gives interactive_only claims turn executions only, and turn executions first', async () => {
    emu = await launch();
    const r = await runnerWith(emu, { max_sessions: 3, alias: 'acct' });
    const wo = emu.admin.enqueueWorkOrder({});
    expect((await claim(emu, r.secret, { interactive_only: true })).status).toBe(204);
    const te = emu.admin.enqueueTurnExecution({});
    expect((await claim(emu, r.secret)).json.turn_execution.id).toBe(te.id);
    expect((await claim(emu, r.secret)).json.work_order.id).toBe(wo.id);
  });

  it('starts, heartbeats and records a result exactly once', async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    emu.admin.enqueueWorkOrder({});
    const { unit } = await claimAndStart(emu, r.secret);
    const base = `/api/runner/work-orders/${unit.id}`;
    expect(StartResponseSchema.parse((await emu.call(`${base}/start`, { token: r.secret, body: {} })).json).started).toBe(true);
    const beat = LeaseHeartbeatResponseSchema.parse((await emu.call(`${base}/heartbeat`, { token: r.secret, body: { elapsed_ms: 10 } })).json);
    expect(beat.status).toBe('active');
    const result = {
      status: 'succeeded',
      summary: 'done',
      log_ref: `runner-local:${unit.id}`,
      runtime: 'claude-cli',
      usage: { input_tokens: 5, output_tokens: 7, cost_usd: 0.01 },
      idempotency_key: `${unit.id}:1`,
    };
    expect((await emu.call(`${base}/result`, { token: r.secret, body: result })).json).toEqual({ accepted: true });
    const again = await emu.call(`${base}/result`, { token: r.secret, body: result });
    expect([again.status, again.json.error]).toEqual([409, 'already_recorded']);
    const other = await emu.call(`${base}/result`, { token: r.secret, body: { ...result, idempotency_key: `${unit.id}:2` } });
    expect(other.status).toBe(409);
    expect(emu.admin.listResults({ unit_id: unit.id })).toHaveLength(1);
    expect(emu.admin.getUnit(unit.id)?.status).toBe('succeeded');
    expect(emu.admin.listLeaseHeartbeats({ unit_id: unit.id })[0]).toMatchObject({ answered: 'active', body: { elapsed_ms: 10 } });
    const bad = await emu.call(`${base}/result`, { token: r.secret, body: { status: 'done', summary: 'x'.repeat(12_001) } });
    expect(bad.status).toBe(400);
    expect(bad.json.message).toMatch(/status/);
    expect(bad.json.message).toMatch(/summary/);
  });

  it('hides other runners’ units and wrong paths behind 404', async () => {
    emu = await launch();
    const a = await runnerWith(emu, {}, 'a');
    const b = await runnerWith(emu, {}, 'b');
    emu.admin.enqueueWorkOrder({});
    const { unit } = await claimAndStart(emu, a.secret);
    expect((await emu.call(`/api/runner/work-orders/${unit.id}/start`, { token: b.secret, body: {} })).status).toBe(404);
    expect((await emu.call(`/api/runner/turn-executions/${unit.id}/start`, { token: a.secret, body: {} })).status).toBe(404);
    expect((await emu.call(`/api/runner/widgets/${unit.id}/start`, { token: a.secret, body: {} })).status).toBe(404);
    expect((await emu.call(`/api/runner/work-orders/${crypto.randomUUID()}/result`, { token: a.secret, body: { status: 'failed', summary: '' } })).status).toBe(
      404,
    );
  });

  it('only lets the targeted runner claim a targeted unit', async () => {
    emu = await launch();
    const a = await runnerWith(emu, {}, 'a');
    const b = await runnerWith(emu, {}, 'b');
    emu.admin.enqueueTurnExecution({ target_runner_id: b.runner_id });
    expect((await claim(emu, a.secret)).status).toBe(204);
    expect((await claim(emu, b.secret)).status).toBe(200);
  });
});

describe('long-poll', () => {
  it('answers a held claim the moment a unit is enqueued', async () => {
    // The hold outlasts the test's own timeout: only the enqueue can answer it in time.
    emu = await launch({ config: { longPollMaxMs: 120_000 } });
    const r = await runnerWith(emu);
    const held = emu.admin.waitForEvent('claim.held');
    const pending = claim(emu, r.secret, { wait_ms: 120_000 });
    await held;
    const unit = emu.admin.enqueueTurnExecution({});
    const res = await pending;
    expect(res.json.turn_execution.id).toBe(unit.id);
  });

  it('caps wait_ms at long_poll_max_ms', async () => {
    emu = await launch({ config: { longPollMaxMs: 150 } });
    const r = await runnerWith(emu);
    const held = emu.admin.waitForEvent('claim.held');
    const answer = claim(emu, r.secret, { wait_ms: 120_000 });
    expect((await held).data).toMatchObject({ wait_ms: 150 });
    expect((await answer).status).toBe(204);
  });

  it('drops a held claim whose client went away, so the next unit is not lost', async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    const controller = new AbortController();
    const held = emu.admin.waitForEvent('claim.held');
    const gone = claim(emu, r.secret, { wait_ms: 10_000 }, controller.signal).catch(() => 'aborted');
    await held;
    const abandoned = emu.admin.waitForEvent('claim.abandoned');
    controller.abort();
    expect(await gone).toBe('aborted');
    await abandoned;
    expect(emu.admin.heldClaims()).toBe(0);
    const unit = emu.admin.enqueueTurnExecution({});
    expect((await claim(emu, r.secret)).json.turn_execution.id).toBe(unit.id);
  });

  it('records a heartbeat a long-poll claim carries and answers it, empty or with a unit [v1]', async () => {
    emu = await launch({ config: { longPollMaxMs: 100 } });
    const r = await runnerWith(emu);
    const before = emu.admin.listHeartbeats({ runner_id: r.runner_id }).length;
    const idle = await claim(emu, r.secret, { wait_ms: 100, heartbeat: { telemetry: { ...telemetry, active_sessions: 0 } } });
    expect(idle.status).toBe(200);
    expect(ClaimResponseSchema.parse(idle.json)).toMatchObject({
      heartbeat: { runner_id: r.runner_id, claim: { long_poll_max_ms: 100, carries_heartbeat: true } },
    });
    expect(idle.json.turn_execution).toBeUndefined();
    const unit = emu.admin.enqueueTurnExecution({});
    const busy = await claim(emu, r.secret, { wait_ms: 100, heartbeat: { telemetry: { ...telemetry, active_sessions: 1 } } });
    expect(busy.json).toMatchObject({ turn_execution: { id: unit.id }, heartbeat: { runner_id: r.runner_id } });
    const beats = emu.admin.listHeartbeats({ runner_id: r.runner_id });
    expect(beats.length - before).toBe(2);
    expect(beats[0]).toMatchObject({ max_sessions: 2 });
  });

  it('a server without the carried heartbeat ignores it and answers as before', async () => {
    emu = await launch({ config: { longPollMaxMs: 100, claimCarriesHeartbeat: false, claimCancelNotices: false } });
    const r = await runnerWith(emu);
    const hb = HeartbeatResponseSchema.parse((await emu.call('/api/runner/heartbeat', { token: r.runner_secret, body: {} })).json);
    expect(hb.claim).toEqual({ long_poll_max_ms: 100 });
    const before = emu.admin.listHeartbeats({ runner_id: r.runner_id }).length;
    expect((await claim(emu, r.secret, { wait_ms: 100, heartbeat: { telemetry } })).status).toBe(204);
    expect(emu.admin.listHeartbeats({ runner_id: r.runner_id }).length).toBe(before);
  });

  it('answers a held claim 401 the moment its runner is revoked', async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    const held = emu.admin.waitForEvent('claim.held');
    const pending = claim(emu, r.secret, { wait_ms: 60_000 });
    await held;
    emu.admin.revokeRunner(r.runner_id);
    expect((await pending).status).toBe(401);
    expect(emu.admin.heldClaims()).toBe(0);
  });

  it('wakes when capacity frees up', async () => {
    emu = await launch();
    const r = await runnerWith(emu); // default account: one session
    emu.admin.enqueueWorkOrder({});
    emu.admin.enqueueWorkOrder({});
    const { unit } = await claimAndStart(emu, r.secret);
    const held = emu.admin.waitForEvent('claim.held');
    const pending = claim(emu, r.secret, { wait_ms: 10_000 });
    await held;
    await api(emu.url, `/api/runner/work-orders/${unit.id}/result`, { token: r.secret, body: { status: 'succeeded', summary: 'ok' } });
    expect((await pending).status).toBe(200);
  });
});

describe('cancel notices on held claims [v1]', () => {
  it('answers a held claim early with the cancel of a running unit, not again once the runner says it is canceling', async () => {
    emu = await launch({ config: { longPollMaxMs: 120_000 } });
    const r = await runnerWith(emu, { max_sessions: 4, alias: 'team' });
    emu.admin.enqueueTurnExecution({});
    const { unit } = await claimAndStart(emu, r.secret);
    // A notices-only read takes no unit, even with one queued, and is held until the cancel.
    emu.admin.enqueueTurnExecution({});
    const held = emu.admin.waitForEvent('claim.held');
    const pending = claim(emu, r.secret, { wait_ms: 120_000, notices_only: true });
    await held;
    emu.admin.cancelUnit(unit.id);
    const answer = ClaimResponseSchema.parse((await pending).json);
    expect(answer).toEqual({ cancels: [{ unit_id: unit.id, kind: 'turn_execution', reason: 'canceled_by_admin' }] });
    // Told again while the runner does not say it heard it (a lost answer), not once it does.
    expect(ClaimResponseSchema.parse((await claim(emu, r.secret, { wait_ms: 10, notices_only: true })).json).cancels).toHaveLength(1);
    expect((await claim(emu, r.secret, { wait_ms: 10, notices_only: true, canceling: [unit.id] })).status).toBe(204);
    // A claim that asks for notices still gets the queued unit when there is no cancel to tell.
    const next = ClaimResponseSchema.parse((await claim(emu, r.secret, { wait_ms: 10, notices: true, canceling: [unit.id] })).json);
    expect(next.turn_execution).toBeDefined();
    // A claim that does not ask hears nothing of it.
    emu.admin.enqueueTurnExecution({});
    expect(ClaimResponseSchema.parse((await claim(emu, r.secret, { wait_ms: 10 })).json).cancels).toBeUndefined();
    const hb = HeartbeatResponseSchema.parse((await emu.call('/api/runner/heartbeat', { token: r.secret, body: {} })).json);
    expect(hb.claim).toMatchObject({ cancel_notices: true });
  });
});

describe('scheduler caps', () => {
  it('honours max_sessions, the one-session default account, a paused runner and the tenant cap', async () => {
    emu = await launch();
    for (let i = 0; i < 4; i++) emu.admin.enqueueWorkOrder({});
    const named = await runnerWith(emu, { max_sessions: 2, alias: 'team' }, 'named');
    expect((await claim(emu, named.secret)).status).toBe(200);
    expect((await claim(emu, named.secret)).status).toBe(200);
    expect((await claim(emu, named.secret)).status).toBe(204);

    const dflt = await runnerWith(emu, { max_sessions: 3 }, 'default-account');
    expect((await claim(emu, dflt.secret)).status).toBe(200);
    expect((await claim(emu, dflt.secret)).status).toBe(204);

    const paused = await runnerWith(emu, { max_sessions: 3, alias: 'x', paused: true }, 'paused');
    expect((await claim(emu, paused.secret)).status).toBe(204);

    emu.admin.setConfig({ caps: { tenant: 3 } });
    const fresh = await runnerWith(emu, { max_sessions: 3, alias: 'y' }, 'fresh');
    expect((await claim(emu, fresh.secret)).status).toBe(204); // 3 active in the tenant already
    emu.admin.setConfig({ caps: { tenant: 8 } });
    expect((await claim(emu, fresh.secret)).status).toBe(200);
  });

  it('honours the per-project cap', async () => {
    emu = await launch({ config: { caps: { project: 1 } } });
    const request = emu.admin.createBuildRequest({ title: 'x', status: 'in_progress' });
    emu.admin.enqueueWorkOrder({ build_request_id: request.id });
    emu.admin.enqueueWorkOrder({ build_request_id: request.id });
    const other = emu.admin.enqueueWorkOrder({});
    const r = await runnerWith(emu, { max_sessions: 4, alias: 'team' });
    expect((await claim(emu, r.secret)).status).toBe(200);
    expect((await claim(emu, r.secret)).json.work_order.id).toBe(other.id);
    expect((await claim(emu, r.secret)).status).toBe(204);
  });
});
