import { afterEach, describe, expect, it } from 'vitest';
import { sechroom } from '../../shared/protocol';
import { fakeClock, type Clock } from './helpers';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
let clock: Clock;
afterEach(() => emu?.close());

async function setup() {
  clock = fakeClock();
  emu = await launchSechroom({ now: clock.now });
  const inst = await emu.register('lane-a');
  const task = emu.sechroom.createTask({ title: 'Lease me' });
  const claim = await emu.claimHead(inst.id);
  return { inst, task, claim };
}

describe('Sechroom leases', () => {
  it('extends the 120 s TTL on each heartbeat', async () => {
    const { claim } = await setup();
    expect(Date.parse(claim.lease.expiresAt) - clock.now()).toBe(120_000);
    for (let i = 0; i < 4; i++) {
      clock.advance(100_000);
      const beat = sechroom.LeaseHeartbeatResponseSchema.parse((await emu.heartbeat(claim.lease.id, claim.claimToken)).json);
      expect(beat).toMatchObject({ status: 'active', leaseId: claim.lease.id });
      expect(Date.parse(beat.expiresAt) - clock.now()).toBe(120_000);
    }
    expect(emu.sechroom.sweep()).toBe(0);
    expect(emu.sechroom.listLeases()[0]).toMatchObject({ status: 'active', heartbeats: 4 });
  });

  it('expires an unbeaten lease and re-offers the task under a new generation (a new idempotency key)', async () => {
    const { inst, task, claim } = await setup();
    clock.advance(120_000);
    expect(emu.sechroom.sweep()).toBe(1);
    const [offer] = await emu.offers(inst.id);
    expect(offer!.memoryId).toBe(task.memoryId);
    expect(offer!.generationId).not.toBe(claim.lease.generationId);
    expect(emu.sechroom.getTask(task.memoryId)).toMatchObject({ status: 'ready', generation: 2 });
    // The old key names a dead lease: it sends the client to the direct claim rather than reviving it.
    expect((await emu.claimNext(inst.id, `executor-run:${claim.lease.generationId}`)).json).toMatchObject({ outcome: 'Superseded' });
    expect((await emu.claimDirect(inst.id, claim.lease.generationId)).json).toMatchObject({ outcome: 'Superseded' });
    const second = await emu.claimHead(inst.id);
    expect(second.lease.id).not.toBe(claim.lease.id);
    expect(second.claimToken).not.toBe(claim.claimToken);
    expect((await emu.heartbeat(claim.lease.id, claim.claimToken)).json).toMatchObject({ status: 'expired', reason: 'ttl' });
    const late = await emu.complete(claim.lease.id, { executorInstanceId: inst.id, claimToken: claim.claimToken });
    expect([late.status, late.json.error]).toEqual([409, 'lease_expired']);
    expect(emu.sechroom.listCompletions()).toEqual([]);
  });

  it('expires lazily before a request too', async () => {
    const { inst, claim } = await setup();
    clock.advance(120_001);
    expect((await emu.offers(inst.id))[0]!.generationId).not.toBe(claim.lease.generationId);
  });

  it('records a completion exactly once; an identical repeat answers the same, a different one is refused', async () => {
    const { inst, task, claim } = await setup();
    const body = {
      executorInstanceId: inst.id,
      claimToken: claim.claimToken,
      verdict: 'soft-fail',
      text: 'partial\n\nDelivery: none',
      source: 'lane-a',
      title: 'Lease me — driven closeout',
    };
    const first = sechroom.LeaseCompleteResponseSchema.parse((await emu.complete(claim.lease.id, body)).json);
    expect(first).toMatchObject({ outcome: 'Completed', completionMemoryId: expect.stringMatching(/^mem_/), repeated: false });
    const repeat = sechroom.LeaseCompleteResponseSchema.parse((await emu.complete(claim.lease.id, body)).json);
    expect([repeat.completionMemoryId, repeat.repeated]).toEqual([first.completionMemoryId, true]);
    const changed = await emu.complete(claim.lease.id, { ...body, verdict: 'pass' });
    expect([changed.status, changed.json.error, changed.json.completionMemoryId]).toEqual([409, 'already_completed', first.completionMemoryId]);
    const [record] = emu.sechroom.listCompletions();
    expect(emu.sechroom.listCompletions()).toHaveLength(1);
    expect(record).toMatchObject({
      verdict: 'soft-fail',
      text: body.text,
      source: 'lane-a',
      title: body.title,
      lease: { id: claim.lease.id, status: 'completed' },
    });
    expect(emu.sechroom.getTask(task.memoryId)).toMatchObject({ status: 'completed', verdict: 'soft-fail' });
    expect(await emu.offers(inst.id)).toEqual([]);
    expect((await emu.heartbeat(claim.lease.id, claim.claimToken)).json.status).toBe('completed');
  });

  it('refuses a wrong claim token, a foreign instance, an unknown lease, a stale token version and a bad verdict', async () => {
    const { inst, claim } = await setup();
    const other = await emu.register('lane-b');
    const base = { executorInstanceId: inst.id, claimToken: claim.claimToken };
    const wrongToken = await emu.complete(claim.lease.id, { ...base, claimToken: 'sct_wrong' });
    expect([wrongToken.status, wrongToken.json.error]).toEqual([403, 'invalid_claim_token']);
    expect((await emu.heartbeat(claim.lease.id, 'sct_wrong')).status).toBe(403);
    const foreign = await emu.complete(claim.lease.id, { ...base, executorInstanceId: other.id });
    expect([foreign.status, foreign.json.error]).toEqual([403, 'foreign_lease']);
    expect((await emu.complete('lse_unknown', base)).json.error).toBe('unknown_lease');
    expect((await emu.heartbeat('lse_unknown', claim.claimToken)).status).toBe(404);
    expect((await emu.wl(`/me/executor-task-leases/${claim.lease.id}/heartbeat`, { body: {} })).json.message).toMatch(/claimToken/);
    const otherTenant = emu.admin.createOperator({ name: 'Far', role: 'member', tenant_id: emu.admin.createTenant({ name: 'Elsewhere' }).id });
    const far = emu.mint({ operator_id: otherTenant.id });
    expect((await emu.wl(`/me/executor-task-leases/${claim.lease.id}/heartbeat`, { as: far, body: { claimToken: claim.claimToken } })).status).toBe(404);
    const version = await emu.complete(claim.lease.id, { ...base, tokenVersion: 2 });
    expect([version.status, version.json.error]).toEqual([409, 'stale_token_version']);
    const longTitle = await emu.complete(claim.lease.id, { ...base, title: 'x'.repeat(1001) });
    expect(longTitle.json.message).toMatch(/title/);
    const verdict = await emu.complete(claim.lease.id, { ...base, verdict: 'done' });
    expect([verdict.status, verdict.json.message]).toEqual([400, expect.stringMatching(/verdict/)]);
    const missing = await emu.wl(`/me/executor-task-leases/${claim.lease.id}/complete`, { body: { claimToken: claim.claimToken } });
    expect(missing.json.message).toMatch(/executorInstanceId/);
    expect(emu.sechroom.listCompletions()).toEqual([]);
  });

  it('[v1] answers cancel_requested on the heartbeat once an admin asks, and ends the task instead of re-offering it', async () => {
    const { inst, task, claim } = await setup();
    const asked = await emu.call(`/_emulator/sechroom/leases/${claim.lease.id}/cancel`, { body: { reason: 'operator stop' } });
    expect(asked.json).toMatchObject({ cancelRequested: true, cancelReason: 'operator stop', status: 'active' });
    const beat = sechroom.LeaseHeartbeatResponseSchema.parse((await emu.heartbeat(claim.lease.id, claim.claimToken)).json);
    expect(beat).toMatchObject({ status: 'cancel_requested', reason: 'operator stop' });
    clock.advance(120_000);
    emu.sechroom.sweep();
    expect(emu.sechroom.getTask(task.memoryId)).toMatchObject({ status: 'canceled', statusReason: 'operator stop' });
    expect(await emu.offers(inst.id)).toEqual([]);
    expect((await emu.call(`/_emulator/sechroom/leases/${claim.lease.id}/cancel`, { body: {} })).status).toBe(409);
  });

  it('expires a lease on the admin API at once, re-offering under a new generation', async () => {
    const { task, claim } = await setup();
    const res = await emu.call(`/_emulator/sechroom/leases/${claim.lease.id}/expire`, { body: {} });
    expect(res.json).toMatchObject({ status: 'expired', endReason: 'admin', task: { status: 'ready', generation: 2 } });
    expect(res.json.task.generationId).not.toBe(task.generationId);
    expect((await emu.call(`/_emulator/sechroom/leases/${claim.lease.id}/expire`, { body: {} })).json.error).toBe('lease_not_active');
    expect((await emu.call('/_emulator/sechroom/leases/lse_nope/expire', { body: {} })).status).toBe(404);
    expect((await emu.call('/_emulator/sechroom/leases?status=expired')).json).toHaveLength(1);
  });
});

describe('lease notices [v1]', () => {
  it('holds the read until a held lease is canceled, tells it until the executor names it, and 404s when off', async () => {
    emu = await launchSechroom();
    const inst = await emu.register('lane-a');
    emu.sechroom.createTask({ title: 'Lease me' });
    const claim = await emu.claimHead(inst.id);
    const path = `/me/executor-instances/${inst.id}/lease-notices`;
    const held = emu.sechroom.waitForEvent('sechroom.lease_notices.held');
    const pending = emu.wl(`${path}?waitMs=20000`);
    await held;
    emu.sechroom.cancelLease(claim.lease.id, 'operator_requested');
    const told = sechroom.LeaseNoticesSchema.parse((await pending).json);
    expect(told).toEqual({ cancels: [{ leaseId: claim.lease.id, status: 'cancel_requested', reason: 'operator_requested' }] });
    // Told again to a read that does not name it (its answer may have been lost), not to one that does.
    expect((await emu.wl(`${path}?waitMs=0`)).json.cancels).toHaveLength(1);
    expect((await emu.wl(`${path}?waitMs=10&canceling=${claim.lease.id}`)).json).toEqual({ cancels: [] });
    emu.sechroom.setConfig({ leaseNotices: false });
    expect((await emu.wl(`${path}?waitMs=0`)).status).toBe(404);
  });
});
