import { afterEach, describe, expect, it } from 'vitest';
import { claim, claimAndStart, fakeClock, launch, runnerWith, type Clock } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
let clock: Clock;
afterEach(() => emu?.close());

/** Lease heartbeat 1 s, so a lease lives 3 s without a heartbeat. */
async function setup() {
  clock = fakeClock();
  emu = await launch({ now: clock.now, config: { leaseHeartbeatMs: 1000 } });
  return runnerWith(emu, { max_sessions: 2, alias: 'team' });
}

describe('lease expiry', () => {
  it('re-queues a claimed unit that was never started, and its old MCP token dies', async () => {
    const r = await setup();
    const unit = emu.admin.enqueueWorkOrder({});
    const first = (await claim(emu, r.secret)).json.work_order;
    clock.advance(3001);
    expect(emu.admin.sweep()).toBe(1);
    expect(emu.admin.getUnit(unit.id)).toMatchObject({ status: 'queued', runner_id: null, status_reason: 'lease_expired' });
    const second = (await claim(emu, r.secret)).json.work_order;
    expect(second.attempt).toBe(2);
    const old = await emu.call('/mcp', { token: first.mcp.token, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(old.status).toBe(401);
    const current = await emu.call('/mcp', { token: second.mcp.token, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(current.status).toBe(200);
  });

  it('keeps a lease alive while it is heartbeated', async () => {
    const r = await setup();
    emu.admin.enqueueWorkOrder({});
    const { unit } = await claimAndStart(emu, r.secret);
    for (let i = 0; i < 5; i++) {
      clock.advance(2000);
      expect((await emu.call(`/api/runner/work-orders/${unit.id}/heartbeat`, { token: r.secret, body: {} })).json.status).toBe('active');
    }
    expect(emu.admin.sweep()).toBe(0);
  });

  it('re-queues an expired running work order, and a late result from the first runner still counts', async () => {
    const r = await setup();
    const wo = emu.admin.enqueueWorkOrder({});
    await claimAndStart(emu, r.secret);
    clock.advance(3001);
    emu.admin.sweep();
    expect(emu.admin.getUnit(wo.id)?.status).toBe('queued');
    const beat = await emu.call(`/api/runner/work-orders/${wo.id}/heartbeat`, { token: r.secret, body: {} });
    expect(beat.json).toMatchObject({ status: 'cancel_requested', reason: 'lease_expired' });
    expect((await emu.call(`/api/runner/work-orders/${wo.id}/start`, { token: r.secret, body: {} })).status).toBe(409);
    const late = await emu.call(`/api/runner/work-orders/${wo.id}/result`, { token: r.secret, body: { status: 'succeeded', summary: 'finished anyway' } });
    expect(late.status).toBe(200);
    expect(emu.admin.listResults({ unit_id: wo.id })[0]).toMatchObject({ late: true, status: 'succeeded' });
    expect(emu.admin.getUnit(wo.id)?.status).toBe('succeeded');
  });

  it('fails an expired running turn execution instead of running it twice', async () => {
    const r = await setup();
    const te = emu.admin.enqueueTurnExecution({});
    await claimAndStart(emu, r.secret);
    clock.advance(3001);
    emu.admin.sweep();
    expect(emu.admin.getUnit(te.id)).toMatchObject({ status: 'failed', status_reason: 'lease_expired' });
    expect((await claim(emu, r.secret)).status).toBe(204);
  });

  it('fails a work order that ran out of attempts', async () => {
    const r = await setup();
    const wo = emu.admin.enqueueWorkOrder({ max_attempts: 1 });
    await claimAndStart(emu, r.secret);
    clock.advance(3001);
    emu.admin.sweep();
    expect(emu.admin.getUnit(wo.id)?.status).toBe('failed');
  });

  it('runs expiry lazily before a request, too', async () => {
    const r = await setup();
    const wo = emu.admin.enqueueWorkOrder({});
    await claim(emu, r.secret);
    clock.advance(3001);
    expect((await claim(emu, r.secret)).json.work_order.id).toBe(wo.id);
  });
});
