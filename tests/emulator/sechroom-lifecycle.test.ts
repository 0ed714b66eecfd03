import { afterEach, describe, expect, it } from 'vitest';
import { sechroom } from '../../shared/protocol';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
afterEach(() => emu?.close());

async function setup() {
  emu = await launchSechroom();
  const inst = await emu.register('lane-a');
  const plan = emu.sechroom.createDecomposition({ title: 'Plan', status: 'Accepted' });
  const t1 = emu.sechroom.createTask({ title: 'One', decomposition_id: plan.id });
  const t2 = emu.sechroom.createTask({ title: 'Two', decomposition_id: plan.id });
  return { inst, plan, t1, t2, brief: plan.briefId };
}
const why = { reasonCode: 'operator-hold', source: 'claude-code-chris' };

describe('Sechroom work-brief and work-plan lifecycle', () => {
  it('pause stops offering (running leases go on), resume offers again; repeats change nothing; bad moves are 409', async () => {
    const { inst, brief, t2 } = await setup();
    const claim = await emu.claimHead(inst.id);
    const paused = await emu.wl(`/work-briefs/${brief}/pause`, { body: { ...why, reason: 'Release freeze' } });
    expect(sechroom.BriefLifecycleResponseSchema.parse(paused.json)).toMatchObject({
      status: 'paused',
      action: 'pause',
      changed: true,
      reasonCode: 'operator-hold',
      reason: 'Release freeze',
    });
    expect(await emu.offers(inst.id)).toEqual([]);
    expect((await emu.claimDirect(inst.id, t2.generationId!)).json).toEqual({ outcome: 'NotEligible' });
    expect((await emu.heartbeat(claim.lease.id, claim.claimToken)).json.status).toBe('active');
    expect((await emu.wl(`/work-briefs/${brief}/pause`, { body: why })).json.changed).toBe(false);
    const resumed = await emu.wl(`/work-briefs/${brief}/resume`, { body: { reasonCode: 'operator-resume', source: 'x' } });
    expect(resumed.json).toMatchObject({ status: 'ready_for_decomposition', changed: true });
    expect((await emu.offers(inst.id)).map((o) => o.generationId)).toEqual([t2.generationId]);
    expect((await emu.wl(`/work-briefs/${brief}/resume`, { body: why })).json.changed).toBe(false);
    await emu.wl(`/work-briefs/${brief}/status`, { body: { to: 'status:parked', source: 'me' } });
    const bad = await emu.wl(`/work-briefs/${brief}/pause`, { body: why });
    expect([bad.status, bad.json.error]).toEqual([409, 'invalid_transition']);
    expect((await emu.wl(`/work-briefs/${brief}/pause`, { body: { source: 'x' } })).json.message).toMatch(/reasonCode/);
    expect((await emu.wl('/work-briefs/mem_unknown/pause', { body: why })).status).toBe(404);
  });

  it('park and unpark through POST /work-briefs/{id}/status; supersede asks running leases to stop', async () => {
    const { inst, brief } = await setup();
    const claim = await emu.claimHead(inst.id);
    const parked = await emu.wl(`/work-briefs/${brief}/status`, { body: { id: brief, to: 'status:parked', source: 'me' } });
    expect(sechroom.BriefStatusResponseSchema.parse(parked.json)).toEqual({
      id: brief,
      from: 'ready_for_decomposition',
      to: 'status:parked',
      status: 'parked',
      changed: true,
    });
    expect(await emu.offers(inst.id)).toEqual([]);
    await emu.wl(`/work-briefs/${brief}/status`, { body: { id: brief, to: 'status:ready_for_decomposition', source: 'me' } });
    expect(await emu.offers(inst.id)).toHaveLength(1);
    expect((await emu.wl(`/work-briefs/${brief}/status`, { body: { id: 'mem_other', to: 'status:parked', source: 'me' } })).status).toBe(400);
    expect((await emu.wl(`/work-briefs/${brief}/status`, { body: { to: 'status:done', source: 'me' } })).json.message).toMatch(/to/);
    await emu.wl(`/work-briefs/${brief}/status`, { body: { to: 'status:superseded', source: 'me' } });
    expect((await emu.heartbeat(claim.lease.id, claim.claimToken)).json).toMatchObject({ status: 'cancel_requested', reason: 'brief_superseded' });
    expect(await emu.offers(inst.id)).toEqual([]);
    const terminal = await emu.wl(`/work-briefs/${brief}/status`, { body: { to: 'status:parked', source: 'me' } });
    expect([terminal.status, terminal.json.error]).toEqual([409, 'invalid_transition']);
    expect((await emu.wl(`/work-briefs/${brief}`)).json.status).toBe('superseded');
    const listed = sechroom.WorkBriefListSchema.parse((await emu.wl('/work-briefs?status=superseded')).json);
    expect(listed.items.map((b) => b.id)).toEqual([brief]);
    expect((await emu.wl('/work-briefs')).json.count).toBe(1);
    expect((await emu.wl('/work-briefs?status=gone')).status).toBe(400);
  });

  it('cancel ends the brief’s leases at once: a heartbeat says canceled and completion is refused', async () => {
    const { inst, brief, plan, t2 } = await setup();
    const claim = await emu.claimHead(inst.id);
    const res = await emu.wl(`/work-briefs/${brief}/cancel`, { body: { reasonCode: 'operator-stopped', source: 's', reason: 'Work no longer required' } });
    expect(res.json).toMatchObject({ status: 'cancelled', changed: true });
    expect((await emu.heartbeat(claim.lease.id, claim.claimToken)).json).toMatchObject({ status: 'canceled', reason: 'brief_cancelled' });
    const done = await emu.complete(claim.lease.id, { executorInstanceId: inst.id, claimToken: claim.claimToken });
    expect([done.status, done.json.error]).toEqual([409, 'lease_canceled']);
    expect(emu.sechroom.getTask(t2.memoryId).status).toBe('canceled');
    expect((await emu.wl(`/decompositions/${plan.id}`)).json.status).toBe('Cancelled');
    expect((await emu.wl(`/work-briefs/${brief}/resume`, { body: why })).status).toBe(409);
  });

  it('a plan-invalid verdict fails the plan; resume re-offers that task under a new generation', async () => {
    const { inst, plan, t1 } = await setup();
    const claim = await emu.claimHead(inst.id);
    await emu.complete(claim.lease.id, { executorInstanceId: inst.id, claimToken: claim.claimToken, verdict: 'plan-invalid' });
    expect((await emu.wl(`/decompositions/${plan.id}`)).json.status).toBe('Failed');
    expect(await emu.offers(inst.id)).toEqual([]);
    const resumed = await emu.wl(`/decompositions/${plan.id}/resume`, { body: {} });
    expect(sechroom.DecompositionResumeResponseSchema.parse(resumed.json)).toEqual({ id: plan.id, status: 'Accepted', reoffered: 1 });
    const offers = await emu.offers(inst.id);
    expect(offers.map((o) => o.memoryId)).toEqual([t1.memoryId, expect.any(String)]);
    expect(offers[0]!.generationId).not.toBe(claim.lease.generationId);
    expect((await emu.wl(`/decompositions/${plan.id}/resume`, { body: {} })).json.error).toBe('invalid_transition');
  });

  it('completes a plan when its last task completes, and lists plans newest first with filters and pages', async () => {
    const { inst, plan, brief } = await setup();
    for (let i = 0; i < 2; i++) {
      const claim = await emu.claimHead(inst.id);
      await emu.complete(claim.lease.id, { executorInstanceId: inst.id, claimToken: claim.claimToken });
    }
    expect((await emu.wl(`/decompositions/${plan.id}`)).json).toMatchObject({ status: 'Completed', taskCount: 2 });
    const other = emu.sechroom.createDecomposition({ title: 'Later', status: 'Pending' });
    const all = sechroom.DecompositionListSchema.parse((await emu.wl('/decompositions')).json);
    expect(all.items.map((d) => d.id)).toEqual([other.id, plan.id]);
    expect((await emu.wl(`/decompositions?status=Completed&briefId=${brief}`)).json).toMatchObject({ count: 1, items: [{ id: plan.id }] });
    expect((await emu.wl('/decompositions?page=2&pageSize=1')).json).toMatchObject({ count: 2, page: 2, pageSize: 1, items: [{ id: plan.id }] });
    expect((await emu.wl('/decompositions?status=Bogus')).status).toBe(400);
    expect((await emu.wl('/decompositions?pageSize=500')).status).toBe(400);
  });

  it('return-for-revision stops the plan and makes a Pending successor with the unfinished tasks; accept starts it', async () => {
    const { inst, plan } = await setup();
    const claim = await emu.claimHead(inst.id);
    await emu.complete(claim.lease.id, { executorInstanceId: inst.id, claimToken: claim.claimToken });
    const res = await emu.wl(`/decompositions/${plan.id}/return-for-revision`, { body: { notes: 'Split the migration task' } });
    const revised = sechroom.ReturnForRevisionResponseSchema.parse(res.json);
    expect(revised.status).toBe('ReturnedForRevision');
    expect(await emu.offers(inst.id)).toEqual([]);
    const next = (await emu.wl(`/decompositions/${revised.newSuggestionId}`)).json;
    expect(next).toMatchObject({ status: 'Pending', taskCount: 1, revisionOf: plan.id, revisionNotes: 'Split the migration task' });
    expect((await emu.wl(`/decompositions/${plan.id}/return-for-revision`, { body: {} })).json.message).toMatch(/notes/);
    await emu.wl(`/decompositions/${revised.newSuggestionId}/accept`, { body: {} });
    expect((await emu.offers(inst.id)).map((o) => o.tags)).toEqual([expect.arrayContaining([`wlp-decomposition:${revised.newSuggestionId}`])]);
    expect((await emu.wl(`/decompositions/${revised.newSuggestionId}/accept`, { body: {} })).status).toBe(409);
  });

  it('lists work tasks by lane and status', async () => {
    const { inst } = await setup();
    emu.sechroom.createTask({ title: 'Lane b', lane: 'lane-b' });
    await emu.claimHead(inst.id);
    const list = sechroom.WorkTaskListSchema.parse((await emu.wl('/work-tasks?status=leased')).json);
    expect(list.items.map((t) => t.title)).toEqual(['One']);
    expect((await emu.wl('/work-tasks?lane=lane-b')).json).toMatchObject({ count: 1, items: [{ laneId: 'lane-b', status: 'ready' }] });
    expect((await emu.wl('/work-tasks')).json.count).toBe(3);
    expect((await emu.wl('/work-tasks?status=lost')).status).toBe(400);
    expect((await emu.wl('/decompositions/wlp_unknown')).status).toBe(404);
    expect((await emu.wl('/work-briefs/mem_unknown')).status).toBe(404);
  });
});
