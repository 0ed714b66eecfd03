import { afterEach, describe, expect, it, vi } from 'vitest';
import { ClaimResponseSchema, HeartbeatResponseSchema } from '../../shared/protocol';
import { claimAndStart, launch, runnerWith } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterEach(() => emu?.close());

describe('fault injection', () => {
  it('adds latency to matching routes only, and holds the answer until it has passed', async () => {
    const waits: { ms: number; path: string; release: () => void }[] = [];
    emu = await launch({ faultDelay: (ms, _method, path) => new Promise<void>((release) => waits.push({ ms, path, release })) });
    const r = await runnerWith(emu);
    emu.admin.addFault({ route: '/api/runner/heartbeat', latency_ms: 150 });
    let answered = false;
    const beat = emu.call('/api/runner/heartbeat', { token: r.secret, body: {} }).then((res) => ((answered = true), res));
    await vi.waitUntil(() => waits.length === 1);
    expect(waits[0]).toMatchObject({ ms: 150, path: '/api/runner/heartbeat' });
    // A route the fault does not match is answered at once, with no wait, while the beat is held.
    expect((await emu.call('/api/runner/work-orders/claim', { token: r.secret, body: {} })).status).toBeLessThan(500);
    expect(waits).toHaveLength(1);
    expect(answered).toBe(false);
    waits[0]!.release();
    expect((await beat).status).toBe(200);
  });

  it('answers an injected status for the next N requests, then heals; never faults the admin API', async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    emu.admin.addFault({ route: '*', error: { rate: 1, status: 503 }, remaining: 2 });
    expect((await emu.call('/_emulator/state')).status).toBe(200);
    expect((await emu.call('/api/runner/heartbeat', { token: r.secret, body: {} })).json).toMatchObject({ error: 'injected_fault' });
    expect((await emu.call('/api/runner/heartbeat', { token: r.secret, body: {} })).status).toBe(503);
    expect((await emu.call('/api/runner/heartbeat', { token: r.secret, body: {} })).status).toBe(200);
    expect(emu.admin.listFaults()).toEqual([]);
  });

  it('applies a fractional rate with the injected random source', async () => {
    const rolls = [0.9, 0.1];
    emu = await launch({ random: () => rolls.shift() ?? 0.9 });
    const r = await runnerWith(emu);
    emu.admin.addFault({ route: '/api/runner/*', error: { rate: 0.5, status: 500 } });
    expect((await emu.call('/api/runner/heartbeat', { token: r.secret, body: {} })).status).toBe(200);
    expect((await emu.call('/api/runner/heartbeat', { token: r.secret, body: {} })).status).toBe(500);
  });

  it('drops the connection before the handler, or after it (the effect happened, the answer is lost)', async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    emu.admin.enqueueWorkOrder({});
    const { unit } = await claimAndStart(emu, r.secret);
    const resultPath = `/api/runner/work-orders/${unit.id}/result`;
    const before = emu.admin.addFault({ route: resultPath, drop: { rate: 1, when: 'before' } });
    await expect(emu.call(resultPath, { token: r.secret, body: { status: 'succeeded', summary: 'ok' } })).rejects.toThrow();
    expect(emu.admin.listResults()).toHaveLength(0);
    emu.admin.clearFaults(before.id);
    emu.admin.addFault({ route: '/api/runner/*/*/result', drop: { rate: 1, when: 'after' }, remaining: 1 });
    await expect(emu.call(resultPath, { token: r.secret, body: { status: 'succeeded', summary: 'ok' } })).rejects.toThrow();
    expect(emu.admin.listResults()).toHaveLength(1);
    const retry = await emu.call(resultPath, { token: r.secret, body: { status: 'succeeded', summary: 'ok' } });
    expect(retry.json.error).toBe('already_recorded');
  });

  it('serves malformed bodies: invalid JSON or the wrong shape', async () => {
    emu = await launch();
    const r = await runnerWith(emu);
    emu.admin.addFault({ route: '/api/runner/heartbeat', malformed: { rate: 1, kind: 'invalid_json' }, remaining: 1 });
    const broken = await emu.call('/api/runner/heartbeat', { token: r.secret, body: {} });
    expect(broken.status).toBe(200);
    expect(broken.json).toBeUndefined();
    emu.admin.addFault({ route: '/api/runner/heartbeat', malformed: { rate: 1, kind: 'wrong_shape' }, remaining: 1 });
    expect(HeartbeatResponseSchema.safeParse((await emu.call('/api/runner/heartbeat', { token: r.secret, body: {} })).json).success).toBe(false);
    emu.admin.addFault({ route: '/api/runner/work-orders/claim', malformed: { rate: 1, kind: 'wrong_shape' }, remaining: 1 });
    const claimed = await emu.call('/api/runner/work-orders/claim', { token: r.secret, body: {} });
    expect([claimed.status, ClaimResponseSchema.safeParse(claimed.json).success]).toEqual([200, false]);
  });

  it('manages faults over the admin HTTP API', async () => {
    emu = await launch();
    const created = await emu.call('/_emulator/faults', { body: { route: '/mcp', error: { rate: 1, status: 502 } } });
    expect(created.status).toBe(201);
    expect((await emu.call('/mcp', { body: {} })).status).toBe(502);
    expect((await emu.call('/_emulator/faults', { body: { route: 'no-slash' } })).json.message).toMatch(/route/);
    expect((await emu.call('/_emulator/faults', { body: { route: '/x', error: { rate: 2, status: 200 } } })).json.message).toMatch(
      /error\.rate.*error\.status|error\.status.*error\.rate/,
    );
    expect((await emu.call('/_emulator/faults', { method: 'DELETE' })).json).toEqual({ removed: 1 });
    expect((await emu.call('/mcp', { body: {} })).status).toBe(401);
  });
});
