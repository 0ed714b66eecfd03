// A cancel from the control plane reaches the runtime on a held read [v1], not at the next
// lease heartbeat: the lease heartbeat is made far longer than the test, so a cancel that
// arrives while no lease heartbeat was sent came by the notice. Rost and Sechroom over loopback.
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { TurnView } from '../../shared/turns';
import type { RunningEmulator } from '../../emulator';
import type { SechroomConfig } from '../../emulator/sechroom/config';
import { finished, startHarness, type Harness } from './core-harness';
import type { GitOrigin } from './git-origin';
import { startSechroomHost } from './sechroom-host';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const LONG_LEASE_BEAT_MS = 600_000;

let h: Harness | null = null;
let emu: RunningEmulator | null = null;
let repo: GitOrigin | null = null;
afterEach(async () => {
  await h?.close();
  await emu?.close();
  repo?.cleanup();
  h = emu = repo = null;
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

/** One Sechroom profile whose turns hang on the app-server stub; its lease heartbeat every `beatS` seconds. */
async function sechroomHost(beatS: number, sechroom: Partial<SechroomConfig> = {}): Promise<{ h: Harness; emu: RunningEmulator }> {
  const host = await startSechroomHost({ scenario: { turn: 'hang' }, emulator: { sechroom }, instance: { heartbeatIntervalSeconds: beatS } });
  [h, emu, repo] = [host.h, host.emu, host.git];
  return host;
}

async function runningTask(harness: Harness, plane: RunningEmulator): Promise<{ id: string; leaseId: string }> {
  const task = plane.sechroom.createTask({ title: 'Hangs', objective: 'Never ends.' });
  const running = await harness.waitForEvent('turns:update', (u) => u.active.some((t) => t.plane === 'sechroom' && t.phase === 'running'), 15_000);
  const [lease] = plane.sechroom.listLeases({ memory_id: task.memoryId });
  return { id: running.active.find((t) => t.plane === 'sechroom')!.id, leaseId: lease!.id };
}

function finishedTurn(harness: Harness, id: string): Promise<TurnView> {
  return harness.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === id), 15_000).then((u) => u.finished.find((t) => t.id === id)!);
}

describe('a plane cancel on the held lease-notices read [v1] (Sechroom)', () => {
  it('reaches the running turn before any lease heartbeat', async () => {
    const { h, emu } = await sechroomHost(100);
    const { id, leaseId } = await runningTask(h, emu);
    await emu.sechroom.waitForEvent('sechroom.lease_notices.held', { timeoutMs: 10_000, since: 0 });
    emu.sechroom.cancelLease(leaseId, 'operator_requested');
    const ended = await finishedTurn(h, id);
    expect(ended).toMatchObject({ profile: 'work', reason: expect.stringContaining('canceled by the Work Layer (operator_requested)') });
    expect(emu.sechroom.listLeases({})[0]).toMatchObject({ id: leaseId, heartbeats: 0 });
    expect(emu.sechroom.listCompletions({})).toEqual([]);
  });

  it('against a Work Layer without the read, the lease heartbeat still brings the cancel', async () => {
    const { h, emu } = await sechroomHost(1, { leaseNotices: false });
    const { id, leaseId } = await runningTask(h, emu);
    emu.sechroom.cancelLease(leaseId, 'operator_requested');
    const ended = await finishedTurn(h, id);
    expect(ended.reason).toContain('canceled by the Work Layer (operator_requested)');
    expect(emu.sechroom.listLeases({})[0]!.heartbeats).toBeGreaterThan(0);
  });
});
