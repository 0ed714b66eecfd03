import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PairingState } from '../../shared/runner';
import { finished, startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function pairedHarness(settings: Record<string, unknown> = {}, leaseHeartbeatMs = 200): Promise<Harness> {
  const harness = await startHarness({
    settings: { maxSessions: 2, ...settings },
    emulator: { config: { leaseHeartbeatMs, longPollMaxMs: 2_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } } },
    core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
  });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
  return harness;
}

async function resultFor(harness: Harness, unitId: string) {
  await harness.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unitId, { timeoutMs: 10_000, since: 0 });
  return harness.emu.admin.listResults({ unit_id: unitId });
}

describe('claiming and running units against the emulator', () => {
  it('claims a turn, runs it, shows it live, and delivers the result with usage', async () => {
    h = await pairedHarness();
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:hello', seat: { id: 'seat-1', name: 'Builder' } });
    const view = await finished(h, unit.id);
    expect(view).toMatchObject({
      phase: 'succeeded',
      runtime: 'claude',
      seat: { id: 'seat-1', name: 'Builder' },
      tokens: { input: expect.any(Number), output: 7 },
    });
    const results = await resultFor(h, unit.id);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ status: 'succeeded', runtime: 'claude-cli', idempotency_key: `${unit.id}:1` });
    expect(results[0]!.summary).toContain('hello');
  });

  it('runs at most max_sessions at once; an operator cancel frees a slot for the next unit', async () => {
    h = await pairedHarness({ maxSessions: 2 });
    const units = [1, 2, 3].map(() => h!.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' }));
    await h.waitForEvent('runner:snapshot', (s) => s.sessions.active === 2 && s.status.state === 'working');
    const running = h.emu.admin.listUnits({}).filter((u) => u.status === 'running' || u.status === 'claimed');
    expect(running).toHaveLength(2);
    const first = running[0]!;
    await h.invoke('turns:cancel', { id: first.id });
    const canceled = await finished(h, first.id);
    expect(canceled).toMatchObject({ phase: 'canceled', reason: 'canceled by the operator' });
    expect((await resultFor(h, first.id))[0]).toMatchObject({ status: 'canceled' });
    // The third unit is picked up once the slot is free.
    const third = units.find((u) => !running.some((r) => r.id === u.id))!;
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === third.id && t.phase === 'running'));
    expect(Math.max(...h.events.filter((e) => e.event === 'runner:snapshot').map((e) => (e.payload as { sessions: { active: number } }).sessions.active))).toBe(
      2,
    );
  });

  it('stops the process tree and reports canceled when the control plane cancels the unit', async () => {
    h = await pairedHarness();
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === unit.id && t.pid !== null));
    h.emu.admin.cancelUnit(unit.id);
    const view = await finished(h, unit.id);
    expect(view.phase).toBe('canceled');
    expect(view.reason).toContain('canceled by the control plane');
  });

  it('shows a unit the control plane canceled before it took the start as canceled, not failed, and reports nothing', async () => {
    const held: (() => void)[] = [];
    h = await startHarness({
      settings: { maxSessions: 2 },
      emulator: {
        config: { leaseHeartbeatMs: 200, longPollMaxMs: 2_000 },
        faultDelay: () => new Promise<void>((release) => held.push(release)),
      },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
    h.emu.admin.addFault({ route: '/api/runner/turn-executions/*/start', latency_ms: 1 });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    // The runtime is made beside the start call; the start is held until the unit is canceled.
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === unit.id && t.pid !== null));
    await vi.waitUntil(() => held.length === 1);
    h.emu.admin.cancelUnit(unit.id);
    held[0]!();
    const view = await finished(h, unit.id);
    expect(view).toMatchObject({ phase: 'canceled', reason: expect.stringContaining('canceled by the control plane') });
    expect(h.emu.admin.listResults({ unit_id: unit.id })).toHaveLength(0);
  });

  it('reports a unit whose context packet is invalid as failed, and runs nothing', async () => {
    h = await pairedHarness();
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json', context_packet: { schema_version: 2, sneaky: true } });
    const view = await finished(h, unit.id);
    expect(view).toMatchObject({ phase: 'failed', pid: null, runtime: null });
    expect(view.reason).toContain('invalid Forge context packet');
    expect((await resultFor(h, unit.id))[0]).toMatchObject({ status: 'failed' });
  });

  it('says which runtimes it can run, so a claude-only runner leaves a codex unit queued for another runner', async () => {
    h = await pairedHarness({ runtime: 'claude' });
    const codexUnit = h.emu.admin.enqueueTurnExecution({ brain: 'codex', prompt: 'fake:jsonl' });
    const claudeUnit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    expect((await finished(h, claudeUnit.id)).phase).toBe('succeeded');
    const claims = h.emu.admin.listEvents({ type: 'unit.claimed', limit: 1000 }).map((e) => e.data.unit_id);
    expect(claims).toEqual([claudeUnit.id]);
    expect(h.emu.admin.getUnit(codexUnit.id)?.status).toBe('queued');
  });

  it("reports a unit it cannot run with the seed's words when the server ignores the runtimes it sent", async () => {
    h = await pairedHarness({ runtime: 'claude' });
    h.emu.admin.setConfig({ honourClaimRuntimes: false });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'codex', prompt: 'fake:jsonl' });
    const view = await finished(h, unit.id);
    expect(view.reason).toBe('Runner runtime claude cannot execute requested codex turn.');
    expect((await resultFor(h, unit.id))[0]).toMatchObject({ status: 'failed', summary: 'Runner runtime claude cannot execute requested codex turn.' });
  });

  it('claims nothing while paused, and picks the work up on resume', async () => {
    h = await pairedHarness();
    await h.invoke('runner:pause', { minutes: null });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    await h.waitForEvent('runner:snapshot', (s) => s.status.state === 'paused');
    // Two heartbeats pass while paused; the unit stays queued.
    const seen = h.emu.admin.listEvents({ limit: 100_000 }).length;
    let beats = 0;
    await h.emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && ++beats >= 2 && e.seq > seen, { timeoutMs: 5_000 });
    expect(h.emu.admin.getUnit(unit.id)?.status).toBe('queued');
    await h.invoke('runner:resume');
    expect((await finished(h, unit.id)).phase).toBe('succeeded');
  });

  it('delivers every result exactly once while result POSTs fail 30 % of the time', async () => {
    h = await pairedHarness({ maxSessions: 4 });
    h.emu.admin.addFault({ route: '/api/runner/*/result', error: { rate: 0.3, status: 503 } });
    const units = Array.from({ length: 8 }, () => h!.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' }));
    for (const unit of units) await resultFor(h, unit.id);
    const results = h.emu.admin.listResults({});
    expect(new Set(results.map((r) => r.unit_id)).size).toBe(8);
    expect(results).toHaveLength(8);
  });

  it('keeps going through malformed claim answers', async () => {
    h = await pairedHarness();
    const fault = h.emu.admin.addFault({ route: '/api/runner/work-orders/claim', malformed: { rate: 1, kind: 'wrong_shape' } });
    await h.waitForEvent('log:entries', (entries) => entries.some((e) => e.msg === 'claim failed; backing off'));
    h.emu.admin.clearFaults(fault.id);
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json' });
    expect((await finished(h, unit.id)).phase).toBe('succeeded');
  });

  it('drains on quit: running turns get the limit, then are canceled and reported', async () => {
    h = await pairedHarness();
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === unit.id && t.phase === 'running'));
    await h.core.shutdown(300);
    const results = h.emu.admin.listResults({ unit_id: unit.id });
    expect(results, JSON.stringify(results)).toHaveLength(1);
    expect(results[0]).toMatchObject({ status: 'canceled', summary: expect.any(String) });
    // close() below shuts down again: it must be harmless.
  });
});
