import { afterEach, describe, expect, it } from 'vitest';
import { sechroom } from '../../shared/protocol';
import { fakeClock, type Clock } from './helpers';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
let clock: Clock;
afterEach(() => emu?.close());

describe('Sechroom executor instances', () => {
  it('registers with the seed body, re-registers the same key in place, and answers JSON to every call', async () => {
    clock = fakeClock();
    emu = await launchSechroom({ now: clock.now });
    const res = await emu.wl('/me/executor-instances', {
      body: {
        relayId: 'sechroom-cli-local',
        instanceKey: 'codex-a',
        runtimeKind: 'Codex',
        activationMode: 'Attached',
        claimedCapabilityKeys: ['ui'],
        toolSetRef: null,
        ttlSeconds: 60,
      },
    });
    expect(res.status).toBe(200);
    const inst = sechroom.ExecutorInstanceSchema.parse(res.json);
    expect(inst).toMatchObject({
      id: expect.stringMatching(/^exi_/),
      instanceKey: 'codex-a',
      laneId: 'codex-a',
      status: 'live',
      claimedCapabilityKeys: ['ui'],
      ttlSeconds: 60,
    });
    expect(Date.parse(inst.expiresAt) - clock.now()).toBe(60_000);
    const again = sechroom.ExecutorInstanceSchema.parse((await emu.wl('/me/executor-instances', { body: { instanceKey: 'codex-a', laneId: 'lane-x' } })).json);
    expect([again.id, again.laneId, again.ttlSeconds]).toEqual([inst.id, 'lane-x', 600]);
    expect((await emu.wl('/me/executor-instances')).json).toHaveLength(1);
    expect(emu.sechroom.listInstances()[0]).toMatchObject({ surface: 'cli', operatorId: emu.session.operatorId });
  });

  it('refreshes with a TTL of 30–600 s and refuses others', async () => {
    clock = fakeClock();
    emu = await launchSechroom({ now: clock.now });
    const inst = await emu.register('a', { ttlSeconds: 30 });
    clock.advance(20_000);
    const refreshed = await emu.wl(`/me/executor-instances/${inst.id}/refresh`, { body: { ttlSeconds: 120 } });
    expect(sechroom.InstanceRefreshResponseSchema.parse(refreshed.json)).toMatchObject({ id: inst.id, ttlSeconds: 120 });
    expect(Date.parse(refreshed.json.expiresAt) - clock.now()).toBe(120_000);
    for (const ttlSeconds of [29, 601, 60.5, '60']) {
      const bad = await emu.wl(`/me/executor-instances/${inst.id}/refresh`, { body: { ttlSeconds } });
      expect([bad.status, bad.json.message]).toEqual([400, expect.stringMatching(/ttlSeconds/)]);
    }
    expect((await emu.wl('/me/executor-instances', { body: { instanceKey: 'b', ttlSeconds: 10 } })).status).toBe(400);
    expect((await emu.wl(`/me/executor-instances/${inst.id}/refresh`, { body: {} })).json.ttlSeconds).toBe(120);
    // `--ttl abc` reaches the wire as null (NaN): treated as "not given", not as an error.
    expect((await emu.wl(`/me/executor-instances/${inst.id}/refresh`, { body: { ttlSeconds: null } })).json.ttlSeconds).toBe(120);
    expect((await emu.wl('/me/executor-instances/exi_unknown/refresh', { body: {} })).json.error).toBe('unknown_instance');
  });

  it('stops offering to an instance whose TTL lapsed; a refresh revives it', async () => {
    clock = fakeClock();
    emu = await launchSechroom({ now: clock.now });
    const inst = await emu.register('a', { ttlSeconds: 30 });
    const task = emu.sechroom.createTask({ title: 'T' });
    expect(await emu.offers(inst.id)).toHaveLength(1);
    clock.advance(30_000);
    expect(await emu.offers(inst.id)).toEqual([]);
    expect((await emu.claimNext(inst.id, `executor-run:${task.generationId}`)).json).toEqual({ outcome: 'NoOffer', reason: 'instance_lapsed' });
    expect((await emu.claimDirect(inst.id, task.generationId!)).json).toEqual({ outcome: 'InstanceLapsed' });
    expect(emu.sechroom.state().instances).toEqual({ live: 0, lapsed: 1, deregistered: 0 });
    expect(emu.sechroom.openOffers()[0]!.eligibleInstances).toEqual([]);
    await emu.wl(`/me/executor-instances/${inst.id}/refresh`, { body: { ttlSeconds: 30 } });
    expect(await emu.offers(inst.id)).toHaveLength(1);
    const lapsed = await emu.call(`/_emulator/sechroom/instances/${inst.id}/expire`, { body: {} });
    expect(lapsed.json).toMatchObject({ id: inst.id, status: 'lapsed' });
    expect(await emu.offers(inst.id)).toEqual([]);
    expect((await emu.call('/_emulator/sechroom/instances/exi_nope/expire', { body: {} })).status).toBe(404);
  });

  it('deregisters idempotently; afterwards the instance is unknown and its lease still completes', async () => {
    emu = await launchSechroom();
    const inst = await emu.register('a');
    emu.sechroom.createTask({ title: 'T' });
    const claim = await emu.claimHead(inst.id);
    const gone = await emu.wl(`/me/executor-instances/${inst.id}`, { method: 'DELETE', body: {} });
    expect(sechroom.InstanceDeregisterResponseSchema.parse(gone.json)).toEqual({ id: inst.id, deregistered: true });
    expect((await emu.wl(`/me/executor-instances/${inst.id}`, { method: 'DELETE', body: {} })).status).toBe(200);
    const offers = await emu.wl(`/me/executor-instances/${inst.id}/dispatch-offers`);
    expect([offers.status, offers.json.error]).toEqual([404, 'unknown_instance']);
    expect((await emu.complete(claim.lease.id, { executorInstanceId: inst.id, claimToken: claim.claimToken })).json.outcome).toBe('Completed');
    expect(emu.sechroom.state().instances.deregistered).toBe(1);
  });
});
