// A cancel from the control plane reaches the runtime on the held claim [v1], not at the
// next lease heartbeat: the lease heartbeat is made 10 minutes long, so a cancel that
// arrives while no lease heartbeat was sent came by the notice. Rost over loopback.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { TurnView } from '../../shared/turns';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const LONG_LEASE_BEAT_MS = 600_000;

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function paired(maxSessions: number, config: Record<string, unknown> = {}): Promise<Harness> {
  const harness = await startHarness({
    settings: { maxSessions },
    emulator: { config: { leaseHeartbeatMs: LONG_LEASE_BEAT_MS, longPollMaxMs: 30_000, caps: { tenant: 8, project: 8, defaultAccount: 8 }, ...config } },
    core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
  });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
  return harness;
}

function finished(harness: Harness, id: string): Promise<TurnView> {
  return harness.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === id), 15_000).then((u) => u.finished.find((t) => t.id === id)!);
}

/** Runs one sleeping unit, waits until the runner holds its next read (a claim, or a notices-only read), and cancels it at the plane. */
async function cancelWhileHeld(harness: Harness, noticesOnly: boolean): Promise<{ id: string; view: TurnView }> {
  const unit = harness.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
  await harness.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === unit.id && t.phase === 'running'));
  const claimed = harness.emu.admin.listEvents({ type: 'unit.claimed' }).find((e) => e.data.unit_id === unit.id)!.seq;
  await harness.emu.admin.waitForEvent((e) => e.type === 'claim.held' && e.data.notices_only === noticesOnly, { timeoutMs: 10_000, since: claimed });
  harness.emu.admin.cancelUnit(unit.id);

  return { id: unit.id, view: await finished(harness, unit.id) };
}

describe('a plane cancel on the held claim [v1] (Rost)', () => {
  it('reaches the runtime through the held claim while a slot is free, before any lease heartbeat', async () => {
    h = await paired(2);
    const { id, view } = await cancelWhileHeld(h, false);
    expect(view).toMatchObject({ phase: 'canceled', reason: expect.stringContaining('canceled by the control plane (canceled_by_admin)') });
    expect(h.emu.admin.listEvents({ type: 'unit.cancel_noticed' }).map((e) => e.data.unit_id)).toContain(id);
    expect(h.emu.admin.listLeaseHeartbeats({ unit_id: id })).toHaveLength(0);
  });

  it('reaches a runner whose every slot is busy through a read held for notices alone', async () => {
    h = await paired(1);
    const { id, view } = await cancelWhileHeld(h, true);
    expect(view).toMatchObject({ phase: 'canceled', reason: expect.stringContaining('canceled by the control plane') });
    expect(h.emu.admin.listEvents({ type: 'unit.cancel_noticed' }).map((e) => e.data.unit_id)).toContain(id);
    expect(h.emu.admin.listLeaseHeartbeats({ unit_id: id })).toHaveLength(0);
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === id, { timeoutMs: 10_000, since: 0 });
    expect(h.emu.admin.listResults({ unit_id: id })[0]).toMatchObject({ status: 'canceled' });
  });

  it('against a plane without notices, the lease heartbeat still brings the cancel (and no notices are asked for)', async () => {
    h = await paired(1, { claimCancelNotices: false, leaseHeartbeatMs: 300 });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === unit.id && t.phase === 'running'));
    h.emu.admin.cancelUnit(unit.id);
    const view = await finished(h, unit.id);
    expect(view).toMatchObject({ phase: 'canceled', reason: expect.stringContaining('canceled by the control plane') });
    expect(h.emu.admin.listEvents({ type: 'claim.held' }).some((e) => e.data.notices_only === true)).toBe(false);
    expect(h.emu.admin.listLeaseHeartbeats({ unit_id: unit.id }).some((b) => b.answered === 'cancel_requested')).toBe(true);
  });
});
