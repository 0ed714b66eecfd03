import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { sechroom } from '../../shared/protocol';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
afterEach(() => emu?.close());
const dir = mkdtempSync(join(tmpdir(), 'sechroom-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Sechroom admin API, faults, demo, live page and persistence', () => {
  it('creates briefs, plans, bundles and tasks over HTTP and lists instances, offers, leases and completions', async () => {
    emu = await launchSechroom();
    const brief = (await emu.call('/_emulator/sechroom/briefs', { body: { title: 'Brief' } })).json;
    expect(brief).toMatchObject({ id: expect.stringMatching(/^mem_/), status: 'ready_for_decomposition' });
    const plan = (await emu.call('/_emulator/sechroom/decompositions', { body: { brief_id: brief.id, title: 'Plan' } })).json;
    expect(plan).toMatchObject({ id: expect.stringMatching(/^wlp_/), status: 'Accepted', briefId: brief.id });
    expect((await emu.call('/_emulator/sechroom/bundles', { body: { slug: 'p', version: '1', components: [{ body: 'b' }] } })).status).toBe(201);
    const task = await emu.call('/_emulator/sechroom/tasks', {
      body: {
        title: 'T',
        objective: 'o',
        acceptance: 'a',
        boundaries: 'b',
        closeout: 'c',
        lane: 'lane-a',
        decomposition_id: plan.id,
        context_pack: { slug: 'p', version: '1' },
      },
    });
    expect(task.status).toBe(201);
    expect(task.json).toMatchObject({
      memoryId: expect.stringMatching(/^mem_/),
      decompositionId: plan.id,
      status: 'ready',
      generation: 1,
      contextPack: { slug: 'p', version: '1' },
    });
    const short = (await emu.call('/_emulator/sechroom/tasks', { body: { title: 'Short form', context_pack: 'p@1', decomposition_id: plan.id } })).json;
    expect(short.contextPack).toEqual({ slug: 'p', version: '1' });
    expect((await emu.call('/_emulator/sechroom/tasks', { body: { title: 'x', context_pack: 'p-1' } })).json.message).toMatch(/slug@version|context_pack/);
    const adhoc = (await emu.call('/_emulator/sechroom/tasks', { body: { title: 'Ad hoc' } })).json;
    expect(adhoc.decompositionId).toMatch(/^wlp_/);
    expect((await emu.call('/_emulator/sechroom/tasks', { body: { title: 'x', context_pack: { slug: 'none', version: '1' } } })).status).toBe(404);
    expect((await emu.call('/_emulator/sechroom/tasks', { body: { title: 'x', lanes: 'typo' } })).json.message).toMatch(/unknown field lanes/);
    expect((await emu.call('/_emulator/sechroom/tasks', { body: {} })).json.message).toMatch(/title/);

    const inst = await emu.register('lane-a');
    expect((await emu.call('/_emulator/sechroom/instances')).json[0]).toMatchObject({ id: inst.id, status: 'live', surface: 'cli' });
    expect((await emu.call('/_emulator/sechroom/offers')).json.map((o: { memoryId: string }) => o.memoryId)).toEqual([
      task.json.memoryId,
      short.memoryId,
      adhoc.memoryId,
    ]);
    expect((await emu.call(`/_emulator/sechroom/offers?instance_id=${inst.id}`)).json).toHaveLength(3);
    const claim = await emu.claimHead(inst.id);
    await emu.complete(claim.lease.id, { executorInstanceId: inst.id, claimToken: claim.claimToken, text: 'All done' });
    expect((await emu.call('/_emulator/sechroom/leases')).json[0]).toMatchObject({ id: claim.lease.id, status: 'completed' });
    const [completion] = (await emu.call('/_emulator/sechroom/completions')).json;
    expect(completion).toMatchObject({ verdict: 'pass', text: 'All done', lease: { id: claim.lease.id } });
    expect((await emu.call('/_emulator/sechroom/state')).json).toMatchObject({ completions: 1, leases: { completed: 1 }, tasks: { completed: 1, ready: 2 } });
    expect((await emu.call('/_emulator/sechroom/leases?status=bogus')).status).toBe(400);
    const events = emu.admin.listEvents({ type: 'sechroom.lease' }).map((e) => e.type);
    expect(events).toEqual(['sechroom.lease.claimed', 'sechroom.lease.completed']);
    expect(JSON.stringify(emu.admin.listEvents())).not.toContain(claim.claimToken);
  });

  it('changes the lease TTL and stagger over PATCH /config', async () => {
    emu = await launchSechroom();
    const res = await emu.call('/_emulator/sechroom/config', { method: 'PATCH', body: { leaseTtlMs: 5000, claimStaggerMs: 0 } });
    expect(res.json).toMatchObject({ leaseTtlMs: 5000, claimStaggerMs: 0 });
    expect((await emu.call('/_emulator/sechroom/config', { method: 'PATCH', body: { leaseTtl: 1 } })).status).toBe(400);
    const index = (await emu.call('/_emulator/sechroom')).json;
    expect(index.base).toBe('/sechroom');
    expect(index.routes).toContainEqual({ method: 'POST', pattern: '/sechroom/me/executor-task-leases/:id/complete' });
  });

  it('injects faults on Work Layer routes: 5xx, empty and malformed 2xx bodies, dropped answers — and recovers', async () => {
    emu = await launchSechroom();
    const inst = await emu.register('lane-a');
    const task = emu.sechroom.createTask({ title: 'T' });
    const claimPath = `/sechroom/me/executor-instances/${inst.id}/dispatch-offers/claim-next`;
    emu.admin.addFault({ route: '/sechroom/me/executor-instances/*/dispatch-offers/claim-next', error: { rate: 1, status: 503 }, remaining: 1 });
    expect((await emu.claimNext(inst.id, 'k1')).status).toBe(503);
    emu.admin.addFault({ route: claimPath, malformed: { rate: 1, kind: 'empty' }, remaining: 1 });
    const empty = await emu.claimNext(inst.id, `executor-run:${task.generationId}`);
    expect([empty.status, empty.text]).toEqual([200, '']);
    // The claim behind the empty answer happened; the same key recovers it.
    expect((await emu.claimNext(inst.id, `executor-run:${task.generationId}`)).json.outcome).toBe('AlreadyHeld');
    emu.admin.addFault({ route: '/sechroom/me/executor-instances/*/dispatch-offers', malformed: { rate: 1, kind: 'wrong_shape' }, remaining: 1 });
    expect(sechroom.DispatchOffersSchema.safeParse((await emu.wl(`/me/executor-instances/${inst.id}/dispatch-offers`)).json).success).toBe(false);
    emu.admin.addFault({ route: `/sechroom/tasks/${task.memoryId}/card`, malformed: { rate: 1, kind: 'invalid_json' }, remaining: 1 });
    const card = await emu.wl(`/tasks/${task.memoryId}/card`);
    expect([card.status, card.json]).toEqual([200, undefined]);
    expect(sechroom.TaskCardSchema.safeParse((await emu.wl(`/tasks/${task.memoryId}/card`)).json).success).toBe(true);

    const lease = emu.sechroom.listLeases()[0]!;
    const claimToken = (await emu.claimNext(inst.id, `executor-run:${task.generationId}`)).json.claimToken;
    emu.admin.addFault({ route: '/sechroom/me/executor-task-leases/*/complete', drop: { rate: 1, when: 'after' }, remaining: 1 });
    await expect(emu.complete(lease.id, { executorInstanceId: inst.id, claimToken })).rejects.toThrow();
    const retry = await emu.complete(lease.id, { executorInstanceId: inst.id, claimToken });
    expect(retry.json).toMatchObject({ outcome: 'Completed', repeated: true });
    expect(emu.sechroom.listCompletions()).toHaveLength(1);
  });

  it('seeds a demo brief, plan, context pack and tasks; trickles more; shows them on the live page', async () => {
    emu = await launchSechroom({ seed: 'demo' });
    const tasks = emu.sechroom.listTasks();
    expect(tasks).toHaveLength(3);
    expect(tasks.every((t) => t.contextPack?.slug === 'acme-billing')).toBe(true);
    const again = (await emu.call('/_emulator/sechroom/seed/demo', { body: {} })).json;
    expect(again.tasks).toHaveLength(3);
    const dripped = (await emu.call('/_emulator/sechroom/trickle/once', { body: {} })).json;
    expect(dripped).toMatchObject({ decompositionId: again.decomposition_id, status: 'ready' });
    expect((await emu.call('/_emulator/sechroom/trickle', { body: { enabled: true, min_ms: 60_000 } })).json).toMatchObject({
      enabled: true,
      min_ms: 60_000,
      max_ms: 60_000,
    });
    emu.sechroom.setTrickle(false);

    const inst = await emu.register('lane-<b>');
    const claim = await emu.claimHead(inst.id);
    await emu.complete(claim.lease.id, { executorInstanceId: inst.id, claimToken: claim.claimToken, text: '<script>alert(1)</script>', verdict: 'blocked' });
    const page = await fetch(`${emu.url}/_emulator/sechroom/live`);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const markup = await page.text();
    expect(markup).toContain('http-equiv="refresh"');
    expect(markup).toContain(inst.id);
    expect(markup).toContain(claim.lease.id);
    expect(markup).toContain('lane-&lt;b&gt;');
    expect(markup).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(markup).not.toContain('<script>');
    emu.admin.reset({ seed: 'demo' });
    expect(emu.sechroom.listTasks()).toHaveLength(3);
    expect(emu.sechroom.listLeases()).toEqual([]);
  });

  it('keeps instances, tasks, leases and completions across a restart, and the claim token still works', async () => {
    const db = join(dir, 'state.sqlite');
    emu = await launchSechroom({ db });
    const inst = await emu.register('lane-a');
    emu.sechroom.createTask({ title: 'Kept' });
    emu.sechroom.createTask({ title: 'Second' });
    const claim = await emu.claimHead(inst.id);
    const { session } = emu;
    await emu.close();

    emu = await launchSechroom({ db });
    // The old bearer and the claim token survive the restart.
    const resumed = await emu.wl(`/me/executor-task-leases/${claim.lease.id}/heartbeat`, { as: session, body: { claimToken: claim.claimToken } });
    expect(resumed.json.status).toBe('active');
    expect((await emu.wl(`/me/executor-instances/${inst.id}/dispatch-offers`, { as: session })).json).toHaveLength(1);
    expect(emu.sechroom.state()).toMatchObject({ leases: { active: 1 }, tasks: { leased: 1, ready: 1 } });
    await emu.close();
    const files = readdirSync(dir).filter((f) => f.startsWith('state.sqlite'));
    const raw = files.map((f) => readFileSync(join(dir, f)).toString('latin1')).join('');
    expect(raw).not.toContain(claim.claimToken);
    expect(raw).not.toContain(session.token);
  });
});
