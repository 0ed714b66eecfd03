import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import type { TurnsPage } from '../../shared/turns';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('a 60 s result outage', () => {
  it('keeps the lease until the result is delivered, and the Turns view says where the result is', async () => {
    // The emulator runs on an injected clock: the test moves it 60 s while the results are refused.
    let emuNow = Date.now();
    h = await startHarness({
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
      // Lease heartbeats every 100 ms; a lease lives 10 s of emulator time without one.
      emulator: { now: () => emuNow, config: { leaseHeartbeatMs: 100, leaseTtlFactor: 100, longPollMaxMs: 1000 } },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);

    const fault = h.emu.admin.addFault({ route: '/api/runner/turn-executions/*/result', error: { rate: 1, status: 503 } });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:hello' });
    const finished = await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id));
    expect(finished.finished.find((t) => t.id === unit.id)).toMatchObject({
      phase: 'succeeded',
      delivery: { state: expect.stringMatching(/^(sending|waiting)$/) },
    });

    // 60 s pass at the control plane in 5 s steps; after each, the lease has been heartbeated again.
    let since = h.emu.admin.listEvents({ limit: 100_000 }).at(-1)?.seq ?? 0;
    for (let elapsed = 0; elapsed < 60_000; elapsed += 5_000) {
      const beat = await h.emu.admin.waitForEvent((e) => e.type === 'unit.lease_heartbeat' && e.data.unit_id === unit.id, { timeoutMs: 5_000, since });
      expect(beat.data.answered).toBe('active');
      since = beat.seq;
      emuNow += 5_000;
      expect(h.emu.admin.sweep()).toBe(0);
    }
    expect(h.emu.admin.getUnit(unit.id)?.status).toBe('running');

    const waiting = await h.waitForEvent('turns:update', (u) => (u.updated ?? []).some((t) => t.id === unit.id && t.delivery?.state === 'waiting'));
    expect(waiting.updated!.find((t) => t.id === unit.id)!.delivery).toMatchObject({
      state: 'waiting',
      attempts: expect.any(Number),
      since: expect.any(String),
      reason: expect.stringContaining('503'),
    });
    expect((await h.invoke<RunnerSnapshot>('runner:snapshot')).results).toEqual({ undelivered: 1 });

    h.emu.admin.clearFaults(fault.id);
    await h.waitForEvent('turns:update', (u) => (u.updated ?? []).some((t) => t.id === unit.id && t.delivery?.state === 'delivered'));
    expect(h.emu.admin.listResults({ unit_id: unit.id })).toMatchObject([{ status: 'succeeded', late: false }]);
    expect(h.emu.admin.getUnit(unit.id)?.status).toBe('succeeded');
    const row = (await h.invoke<TurnsPage>('turns:list')).history.find((t) => t.id === unit.id);
    expect(row).toMatchObject({ phase: 'succeeded', delivery: { state: 'delivered', reason: null } });
    expect(row!.delivery!.attempts).toBeGreaterThan(1);
    expect((await h.invoke<RunnerSnapshot>('runner:snapshot')).results).toEqual({ undelivered: 0 });

    // Delivered: the lease heartbeats stop (two runner heartbeats later, ten lease beats would have come).
    const after = h.emu.admin.listLeaseHeartbeats({ unit_id: unit.id }).length;
    let seq = h.emu.admin.listEvents({ limit: 100_000 }).at(-1)?.seq ?? 0;
    for (let i = 0; i < 2; i++) seq = (await h.emu.admin.waitForEvent('runner.heartbeat', { timeoutMs: 5_000, since: seq })).seq;
    expect(h.emu.admin.listLeaseHeartbeats({ unit_id: unit.id }).length).toBe(after);
  }, 40_000);

  it('a result that arrives after the control plane failed the unit by lease expiry is shown late, not "Succeeded" alone', async () => {
    let emuNow = Date.now();
    h = await startHarness({
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
      emulator: { now: () => emuNow, config: { leaseHeartbeatMs: 100, leaseTtlFactor: 100, longPollMaxMs: 1000 } },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
    const fault = h.emu.admin.addFault({ route: '/api/runner/turn-executions/*/result', error: { rate: 1, status: 503 } });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:hello' });
    await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id));
    // The control plane's clock jumps past the lease: it fails the unit, and says so on the next lease beat.
    emuNow += 60_000;
    h.emu.admin.sweep();
    expect(h.emu.admin.getUnit(unit.id)).toMatchObject({ status: 'failed', status_reason: 'lease_expired' });
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.lease_heartbeat' && e.data.unit_id === unit.id && e.data.answered === 'cancel_requested', {
      timeoutMs: 5_000,
    });
    h.emu.admin.clearFaults(fault.id);
    const update = await h.waitForEvent('turns:update', (u) => (u.updated ?? []).some((t) => t.id === unit.id && t.delivery?.state === 'delivered'));
    expect(update.updated!.find((t) => t.id === unit.id)).toMatchObject({
      phase: 'succeeded',
      delivery: { state: 'delivered', late: true, reason: 'late: the control plane had already ended the unit (lease_expired)' },
    });
    expect(h.emu.admin.listResults({ unit_id: unit.id })).toMatchObject([{ late: true }]);
  }, 30_000);
});
