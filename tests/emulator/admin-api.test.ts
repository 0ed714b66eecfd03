import { afterEach, describe, expect, it } from 'vitest';
import { launch } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterEach(() => emu?.close());

describe('admin HTTP API', () => {
  it('creates runners and operators, enqueues work and lists results, heartbeats, MCP calls and events', async () => {
    emu = await launch();
    const runner = (await emu.call('/_emulator/runners', { body: { name: 'ci-box' } })).json;
    expect(runner.runner_secret).toMatch(/^rsec_/);
    const op = (await emu.call('/_emulator/operators', { body: { name: 'Ada', role: 'tenant_admin' } })).json;
    expect((await emu.call(`/_emulator/operators/${op.id}/tokens`, { body: {} })).json.access_token).toMatch(/^oat_/);

    const enq = await emu.call('/_emulator/turn-executions', {
      body: {
        prompt: 'hi',
        seat: { id: 's1' },
        session_id: 'sess',
        timeout_ms: 5000,
        lease: { heartbeat_ms: 500 },
        brain: 'codex',
        context_packet: { any: 'thing' },
      },
    });
    expect(enq.status).toBe(201);
    await emu.call('/api/runner/heartbeat', { token: runner.runner_secret, body: { telemetry: { max_sessions: 1 } } });
    const unit = (await emu.call('/api/runner/work-orders/claim', { token: runner.runner_secret, body: {} })).json.turn_execution;
    expect(unit).toMatchObject({ brain: 'codex', context_packet: { any: 'thing' }, lease: { heartbeat_ms: 500 } });
    await emu.call('/mcp', {
      token: unit.mcp.token,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'report_progress', arguments: { message: 'x' } } },
    });
    await emu.call(`/api/runner/turn-executions/${unit.id}/result`, { token: runner.runner_secret, body: { status: 'failed', summary: 'nope' } });

    expect((await emu.call(`/_emulator/units?status=failed`)).json.map((u: { id: string }) => u.id)).toEqual([unit.id]);
    expect((await emu.call(`/_emulator/units/${unit.id}`)).json.status).toBe('failed');
    expect((await emu.call(`/_emulator/results?unit_id=${unit.id}`)).json[0]).toMatchObject({ status: 'failed', idempotency_key: `${unit.id}:1` });
    expect((await emu.call(`/_emulator/heartbeats?runner_id=${runner.runner_id}`)).json).toHaveLength(1);
    expect((await emu.call('/_emulator/mcp-calls?tool=report_progress')).json[0].unit_id).toBe(unit.id);
    const events = (await emu.call('/_emulator/events?type=unit')).json.map((e: { type: string }) => e.type);
    expect(events).toEqual(['unit.enqueued', 'unit.claimed', 'unit.result']);
    expect((await emu.call('/_emulator/units?status=bogus')).json.message).toMatch(/status/);
    expect((await emu.call('/_emulator/turn-executions', { body: { prompt: 5 } })).json.message).toMatch(/prompt/);
    expect((await emu.call('/_emulator/turn-executions', { body: { promtp: 'typo' } })).json.message).toMatch(/unknown field promtp/);
  });

  it('approves and denies pairings by code', async () => {
    emu = await launch({ config: { pairingIntervalSec: 0 } });
    const start = (await emu.call('/api/runner/pairing/start', { body: { name: 'x', platform: 'linux' } })).json;
    expect((await emu.call('/_emulator/pairings/approve', { body: { user_code: start.user_code } })).json.status).toBe('approved');
    const claimed = await emu.call('/api/runner/pairing/claim', { body: { pairing_id: start.pairing_id } });
    expect(claimed.status).toBe(200);
    // [v1] The tenant's name comes with its id.
    expect(claimed.json).toMatchObject({ tenant_id: expect.any(String), tenant_name: 'Development tenant' });
    const other = (await emu.call('/api/runner/pairing/start', { body: { name: 'y', platform: 'win32' } })).json;
    expect((await emu.call('/_emulator/pairings/deny', { body: { user_code: other.user_code } })).json.status).toBe('denied');
    expect((await emu.call('/_emulator/pairings/deny', { body: { user_code: other.user_code } })).status).toBe(409);
    expect((await emu.call('/_emulator/pairings/approve', { body: { user_code: 'BBBB-BBBB' } })).status).toBe(404);
  });

  it('creates and changes build requests and their children', async () => {
    emu = await launch();
    const req = (await emu.call('/_emulator/build-requests', { body: { title: 'T', status: 'open', cost_budget_usd: '10.50' } })).json;
    await emu.call(`/_emulator/build-requests/${req.id}/tasks`, { body: { title: 'one' } });
    await emu.call(`/_emulator/build-requests/${req.id}/gates`, { body: { kind: 'plan_approval', title: 'Approve' } });
    await emu.call(`/_emulator/build-requests/${req.id}/plan-versions`, { body: { clarifying_questions: ['Why?'] } });
    await emu.call(`/_emulator/build-requests/${req.id}/changesets`, { body: { title: 'feat: x' } });
    await emu.call(`/_emulator/build-requests/${req.id}/phase-runs`, { body: { phase: 'planning', status: 'running' } });
    const patched = await emu.call(`/_emulator/build-requests/${req.id}`, { method: 'PATCH', body: { status: 'blocked', current_phase: 'planning' } });
    expect(patched.json).toMatchObject({ status: 'blocked', current_phase: 'planning', cost_budget_usd: '10.50' });
    const show = (await emu.call(`/_emulator/build-requests/${req.id}`)).json;
    expect([show.tasks.length, show.gates.length, show.plan_versions.length, show.changesets.length, show.phase_runs.length]).toEqual([1, 1, 1, 1, 2]);
    expect((await emu.call(`/_emulator/tasks/${show.tasks[0].id}`, { method: 'PATCH', body: { status: 'completed' } })).json.checkpoint_ref).toMatch(
      /^checkpoint:/,
    );
    expect((await emu.call('/_emulator/build-requests', { body: { title: 'T', cost_budget_usd: 'ten' } })).json.message).toMatch(/cost_budget_usd/);
  });

  it('toggles confirmation mode and configuration, runs the trickle once and resets everything', async () => {
    emu = await launch();
    expect((await emu.call('/_emulator/confirmation-mode', { body: { enabled: true } })).json).toEqual({ enabled: true });
    expect((await emu.call('/_emulator/config', { method: 'PATCH', body: { longPollMaxMs: 1000, caps: { tenant: 2 } } })).json).toMatchObject({
      longPollMaxMs: 1000,
      caps: { tenant: 2, project: 4, defaultAccount: 1 },
    });
    expect((await emu.call('/_emulator/trickle/once', { body: {} })).json.kind).toBe('turn_execution');
    expect((await emu.call('/_emulator/reset', { body: { seed: 'demo' } })).status).toBe(200);
    const state = (await emu.call('/_emulator/state')).json;
    expect(state).toMatchObject({ tenants: 1, operators: 2, build_requests: 6, units: {}, confirmation_mode: false });
    expect((await emu.call('/_emulator')).json.routes.length).toBeGreaterThan(40);
  });
});
