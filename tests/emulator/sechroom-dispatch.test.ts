import { afterEach, describe, expect, it } from 'vitest';
import { sechroom } from '../../shared/protocol';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
afterEach(() => emu?.close());

describe('Sechroom dispatch: offers, claim-next and the direct claim', () => {
  it('offers by lane and capability keys, oldest first, with generation ids, tags and a stagger', async () => {
    emu = await launchSechroom();
    const a = await emu.register('lane-a', { claimedCapabilityKeys: ['ui', 'db'] });
    const b = await emu.register('lane-b');
    const any = emu.sechroom.createTask({ title: 'Any lane' });
    const onlyA = emu.sechroom.createTask({ title: 'Lane a only', lane: 'lane-a' });
    const needsUi = emu.sechroom.createTask({ title: 'Needs ui', capability_keys: ['ui'] });
    emu.sechroom.createTask({ title: 'Lane c', lane: 'lane-c' });

    const forA = sechroom.DispatchOffersSchema.parse(await emu.offers(a.id));
    expect(forA.map((o) => o.memoryId)).toEqual([any.memoryId, onlyA.memoryId, needsUi.memoryId]);
    expect(forA[0]).toMatchObject({ generationId: any.generationId, tags: ['kind:task', `wlp-decomposition:${any.decompositionId}`] });
    expect(forA[1]!.tags).toContain('lane:lane-a');
    expect(any.memoryId).toMatch(/^mem_/);
    expect(any.decompositionId).toMatch(/^wlp_/);
    const forB = await emu.offers(b.id);
    expect(forB.map((o) => o.memoryId)).toEqual([any.memoryId]);
    // Both compete for the shared task: the one registered first goes first, the other waits one step.
    expect([forA[0]!.suggestedClaimDelayMs, forB[0]!.suggestedClaimDelayMs]).toEqual([0, 500]);
    expect(forA[1]!.suggestedClaimDelayMs).toBe(0);
    // Having claimed, a goes to the back of the queue for the next shared task.
    await emu.claimHead(a.id);
    emu.sechroom.createTask({ title: 'Any lane 2' });
    const next = (await emu.offers(a.id)).find((o) => o.memoryId !== onlyA.memoryId && o.memoryId !== needsUi.memoryId)!;
    expect(next.suggestedClaimDelayMs).toBe(500);
    expect((await emu.offers(b.id))[0]!.suggestedClaimDelayMs).toBe(0);
  });

  it('claim-next is idempotent per key: Claimed, then AlreadyHeld with the same lease and token; NoOffer when empty', async () => {
    emu = await launchSechroom();
    const inst = await emu.register('lane-a');
    expect((await emu.claimNext(inst.id, 'executor-run:none')).json).toEqual({ outcome: 'NoOffer' });
    const task = emu.sechroom.createTask({ title: 'One' });
    const key = `executor-run:${task.generationId}`;
    const first = await emu.claimNext(inst.id, key);
    expect(first.status).toBe(200);
    const claimed = sechroom.ClaimResultSchema.parse(first.json);
    expect(claimed).toMatchObject({ outcome: 'Claimed', tokenVersion: 1, lease: { memoryId: task.memoryId, generationId: task.generationId } });
    expect(claimed.lease!.workspaceId).toMatch(/^wks_/);
    expect(claimed.offer!.tags).toContain(`wlp-decomposition:${task.decompositionId}`);
    const again = sechroom.ClaimResultSchema.parse((await emu.claimNext(inst.id, key)).json);
    expect(again).toMatchObject({ outcome: 'AlreadyHeld', lease: { id: claimed.lease!.id }, claimToken: claimed.claimToken });
    expect(emu.sechroom.listLeases()).toHaveLength(1);
    expect((await emu.claimNext(inst.id, 'executor-run:other')).json).toEqual({ outcome: 'NoOffer' });
  });

  it('answers a stale head with Superseded, and the direct claim then takes the next offer', async () => {
    emu = await launchSechroom();
    const a = await emu.register('a');
    const b = await emu.register('b');
    const t1 = emu.sechroom.createTask({ title: 'First' });
    const t2 = emu.sechroom.createTask({ title: 'Second' });
    const bOffers = await emu.offers(b.id);
    await emu.claimHead(a.id); // a takes t1 between b's offer read and b's claim
    const stale = await emu.claimNext(b.id, `executor-run:${bOffers[0]!.generationId}`);
    expect(stale.json).toEqual({ outcome: 'Superseded', reason: 'taken' });
    expect((await emu.claimDirect(b.id, bOffers[0]!.generationId)).json).toEqual({ outcome: 'Taken' });
    const direct = sechroom.ClaimResultSchema.parse((await emu.claimDirect(b.id, bOffers[1]!.generationId)).json);
    expect(direct).toMatchObject({ outcome: 'Claimed', lease: { memoryId: t2.memoryId } });
    expect((await emu.claimDirect(b.id, t2.generationId!)).json).toMatchObject({ outcome: 'AlreadyHeld', claimToken: direct.claimToken });
    expect((await emu.claimDirect(b.id, 'gen_000000000000')).json).toEqual({ outcome: 'NotFound' });
    expect(t1.memoryId).not.toBe(t2.memoryId);
  });

  it('refuses a direct claim the instance is not eligible for, and one for an instance of someone else', async () => {
    emu = await launchSechroom();
    const a = await emu.register('a');
    const task = emu.sechroom.createTask({ title: 'Lane z', lane: 'z' });
    expect((await emu.claimDirect(a.id, task.generationId!)).json).toEqual({ outcome: 'NotEligible' });
    const other = emu.mint({ operator_id: emu.admin.createOperator({ name: 'Eve', role: 'member' }).id });
    const foreign = await emu.claimDirect(a.id, task.generationId!, other);
    expect([foreign.status, foreign.json.error]).toEqual([404, 'unknown_instance']);
    expect((await emu.wl(`/me/executor-instances/${a.id}/dispatch-offers`, { as: other })).status).toBe(404);
  });

  it('serves the task card and its context pack', async () => {
    emu = await launchSechroom();
    const task = emu.sechroom.createTask({
      title: 'Card',
      objective: 'Do it',
      acceptance: 'Tests pass',
      boundaries: 'src/ only',
      closeout: 'Report',
      context_pack: { slug: 'pack', version: '2', components: [{ title: 'Map', body: 'src/ holds it' }, { body: 'untitled' }] },
    });
    const card = sechroom.TaskCardSchema.parse((await emu.wl(`/tasks/${task.memoryId}/card`)).json);
    expect(card).toMatchObject({
      taskId: task.memoryId,
      title: 'Card',
      task: { objective: 'Do it', acceptance: 'Tests pass', boundaries: 'src/ only', closeout: 'Report' },
      contextPack: { slug: 'pack', version: '2' },
    });
    const pkg = sechroom.BundlePackageSchema.parse((await emu.wl('/bundles/pack/versions/2/package')).json);
    expect(pkg.components).toEqual([{ title: 'Map', body: 'src/ holds it' }, { body: 'untitled' }]);
    expect((await emu.wl('/bundles/pack/versions/9/package')).status).toBe(404);
    expect((await emu.wl('/tasks/mem_nope/card')).json.error).toBe('not_found');
    const bare = emu.sechroom.createTask({ title: 'No pack' });
    expect((await emu.wl(`/tasks/${bare.memoryId}/card`)).json).toMatchObject({ contextPack: null, task: { objective: '' } });
  });

  it('validates claim bodies and names the field', async () => {
    emu = await launchSechroom();
    const inst = await emu.register('a');
    const res = await emu.wl(`/me/executor-instances/${inst.id}/dispatch-offers/claim-next`, { body: { idempotencyKey: 5 } });
    expect([res.status, res.json.message]).toEqual([400, expect.stringMatching(/idempotencyKey/)]);
    expect((await emu.wl('/me/executor-task-claims', { body: { generationId: 'g' } })).json.message).toMatch(/executorInstanceId/);
  });

  it('[v1] holds dispatch-offers?waitMs= until an offer appears, then answers at once', async () => {
    emu = await launchSechroom();
    const inst = await emu.register('lane-a');
    const held = emu.wl(`/me/executor-instances/${inst.id}/dispatch-offers?waitMs=10000`);
    await emu.sechroom.waitForEvent('sechroom.offers.held', { since: 0 });
    emu.sechroom.createTask({ title: 'Other lane', lane: 'lane-z' }); // wakes the hold, but is not for this instance
    const task = emu.sechroom.createTask({ title: 'Wake me' });
    const res = await held;
    expect(res.status).toBe(200);
    expect(sechroom.DispatchOffersSchema.parse(res.json).map((o) => o.memoryId)).toEqual([task.memoryId]);
    // With something to offer, or without waitMs (the seed), it never holds; a short wait ends empty.
    expect(await emu.offers(inst.id)).toHaveLength(1);
    await emu.claimHead(inst.id);
    const other = await emu.register('lane-q');
    expect((await emu.wl(`/me/executor-instances/${other.id}/dispatch-offers?waitMs=20`)).json).toEqual([]);
    expect((await emu.wl(`/me/executor-instances/${other.id}/dispatch-offers?waitMs=-1`)).status).toBe(400);
  });
});
