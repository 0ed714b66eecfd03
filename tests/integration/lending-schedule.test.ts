import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { LendingView } from '../../shared/lending';
import type { PairingState } from '../../shared/runner';
import { SCHEDULE_DAYS } from '../../shared/lending-schedule';
import { JumpClock } from '../helpers/jump-clock';
import { finished, pairWithClaude, startHarness, twoBeats, type Harness } from './core-harness';

// The real core against the emulator: outside the lending hours a queued unit stays queued
// (the profile says why), and it is claimed as soon as the hours open: by a change of the
// schedule, which the gate reads at once, and by the clock reaching the hour (the core's
// real clock set forward to just before it). Every term on a fake clock is
// tests/core/lending/lending-gate.test.ts's.

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('the lending schedule against the emulator', () => {
  it('keeps a queued unit unclaimed outside the lending hours and claims it right after they open', async () => {
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 1 },
      emulator: { config: { longPollMaxMs: 1_000 } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
    });
    // Saved, not a flag: a flag would override the change below.
    await h.invoke('settings:update', { lendSchedule: 'never' });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    const status = await h.waitForEvent('runner:status', (s) => s.state === 'idle' && s.held !== undefined);
    expect(status).toMatchObject({ held: 'Outside your lending hours — no hour of the week is open' });
    expect(await h.invoke<LendingView>('lending:get')).toMatchObject({ holds: [{ kind: 'schedule', resumesAt: null }] });

    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:lent' });
    const queuedAt = Date.now();
    // Two heartbeats later it is still queued: nothing was claimed.
    await h.waitForEvent('runner:snapshot', (s) => Date.parse(s.heartbeat.lastOkAt ?? '') > queuedAt + 2_000);
    expect(h.emu.admin.getUnit(unit.id)?.status).toBe('queued');

    await h.invoke('settings:update', { lendSchedule: '' });
    const done = await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id));
    expect(done.finished.find((t) => t.id === unit.id)?.phase).toBe('succeeded');
    expect(await h.invoke<LendingView>('lending:get')).toMatchObject({ holds: [] });
  });

  it('lets a running turn go on when a hold begins, and cancels it when lendStopsRunningTurns is on', async () => {
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 1 },
      emulator: { config: { longPollMaxMs: 1_000 } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === unit.id));

    await h.invoke('settings:update', { lendSchedule: 'never' });
    const heldAt = Date.now();
    await h.waitForEvent('runner:snapshot', (s) => Date.parse(s.heartbeat.lastOkAt ?? '') > heldAt + 2_000);
    expect(h.emu.admin.getUnit(unit.id)?.status).not.toMatch(/succeeded|failed|canceled/);
    expect(h.events.some((e) => e.event === 'turns:update' && e.payload.finished.some((t) => t.id === unit.id))).toBe(false);

    // On: the next hold cancels it through the cancel path.
    await h.invoke('settings:update', { lendStopsRunningTurns: true, lendSchedule: '' });
    await h.waitForEvent('lending:update', (v) => v.holds.length === 0);
    await h.invoke('settings:update', { lendSchedule: 'never' });
    const done = await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id));
    expect(done.finished.find((t) => t.id === unit.id)?.phase).toBe('canceled');
  });

  it('claims a unit queued before the lending hours once the clock reaches them, not before', async () => {
    const clock = new JumpClock();
    // The next local hour is the only one lent.
    const now = new Date(clock.now());
    const opens = new Date(now.getFullYear(), now.getMonth(), now.getDate(), now.getHours() + 1).getTime();
    const at = new Date(opens);
    const hour = at.getHours();
    const schedule = `${SCHEDULE_DAYS[(at.getDay() + 6) % 7]} ${hour}-${hour + 1}`;
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 1 },
      emulator: { config: { longPollMaxMs: 1_000 } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE }, clock },
    });
    await h.invoke('settings:update', { lendSchedule: schedule });
    await pairWithClaude(h);
    expect(await h.invoke<LendingView>('lending:get')).toMatchObject({ holds: [{ kind: 'schedule', resumesAt: opens }] });

    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:on-time' });
    await twoBeats(h);
    expect(h.emu.admin.getUnit(unit.id)?.status).toBe('queued');

    // A second and a half before the hour: claimed after it, by the gate's own timer.
    clock.jumpTo(opens - 1_500);
    const view = await finished(h, unit.id);
    expect(view.phase).toBe('succeeded');
    expect(Date.parse(view.startedAt)).toBeGreaterThanOrEqual(opens);
    expect(await h.invoke<LendingView>('lending:get')).toMatchObject({ holds: [] });
  });
});
