import { describe, expect, it } from 'vitest';
import { MachineSlots } from '../../../main/core/sessions/machine-slots';
import { IDLE_NOT_AVAILABLE } from '../../../main/core/lending/lending-terms';
import { FakeClock } from '../../helpers/fake-clock';
import { GB, gateHarness, scheduleAround, startOfLocalHour } from './lending-fakes';

describe('the lending gate', () => {
  it('lets work in when no term is set', async () => {
    const h = gateHarness();
    await h.gate.start();
    expect(h.gate.holds()).toEqual([]);
    expect(h.gate.admission.allowsClaim()).toBe(true);
    h.gate.stop();
  });

  it('holds outside the lending hours and lets go at the boundary, by the clock alone', async () => {
    // 08:30 local, lending hours 09–18 today.
    const clock = new FakeClock(startOfLocalHour(Date.parse('2026-12-01T12:00:00Z'), 8) + 30 * 60_000);
    const h = gateHarness({ lendSchedule: scheduleAround(clock.now(), 9, 18) }, clock);
    await h.gate.start();
    const nine = startOfLocalHour(clock.now(), 9);
    expect(h.gate.holds()).toEqual([
      { kind: 'schedule', reason: expect.stringMatching(/^Outside your lending hours — resumes \w{3} 09:00$/), resumesAt: nine },
    ]);
    expect(h.gate.admission.allowsClaim()).toBe(false);
    await clock.advanceAsync(nine - clock.now() - 1);
    expect(h.kinds()).toEqual(['schedule']);
    await clock.advanceAsync(1);
    expect(h.gate.holds()).toEqual([]);
    // And closes again at 18:00.
    await clock.advanceAsync(startOfLocalHour(clock.now(), 18) - clock.now());
    expect(h.kinds()).toEqual(['schedule']);
    h.gate.stop();
  });

  it('waits while the operator uses the machine and lets go when idle crosses the threshold', async () => {
    const h = gateHarness({ lendIdleMinutes: 5 });
    h.machine.lastInputAt = h.clock.now() - 60_000;
    await h.gate.start();
    expect(h.gate.holds()).toEqual([
      { kind: 'idle', reason: 'Waiting: you are using this machine — resumes 5 min after you stop', resumesAt: h.clock.now() + 4 * 60_000 },
    ]);
    expect(h.gate.active).toBe(true);
    await h.clock.advanceAsync(4 * 60_000 - 1_000);
    expect(h.kinds()).toEqual(['idle']);
    await h.clock.advanceAsync(1_000);
    expect(h.gate.holds()).toEqual([]);
    expect(h.gate.active).toBe(false);
    // Input again: the next poll sees it.
    h.machine.lastInputAt = h.clock.now();
    await h.clock.advanceAsync(20_000);
    expect(h.kinds()).toEqual(['idle']);
    h.gate.stop();
  });

  it('says so when idle time is not available, and holds rather than ignoring the term', async () => {
    const h = gateHarness({ lendIdleMinutes: 10 });
    h.machine.lastInputAt = null;
    await h.gate.start();
    expect(h.gate.holds()).toEqual([{ kind: 'idle', reason: `Waiting: ${IDLE_NOT_AVAILABLE}`, resumesAt: null }]);
    await h.set({ lendIdleMinutes: 0 });
    expect(h.gate.holds()).toEqual([]);
    h.gate.stop();
  });

  it('holds on battery unless allowed, then below the minimum charge, and resumes on mains', async () => {
    const h = gateHarness({ lendOnBattery: false });
    await h.gate.start();
    h.machine.power = { onBattery: true, percent: 34 };
    await h.clock.advanceAsync(20_000);
    expect(h.gate.holds()).toEqual([{ kind: 'battery', reason: 'On battery (34 %) — resumes on mains power', resumesAt: null }]);
    h.machine.power = { onBattery: false, percent: 35 };
    await h.clock.advanceAsync(20_000);
    expect(h.gate.holds()).toEqual([]);
    await h.set({ lendOnBattery: true, lendMinBatteryPercent: 20 });
    h.machine.power = { onBattery: true, percent: 15 };
    await h.clock.advanceAsync(20_000);
    expect(h.gate.holds()[0]?.reason).toBe('Battery low (15 % < 20 %) — resumes on mains power or above 20 %');
    h.machine.power = { onBattery: true, percent: 25 };
    await h.clock.advanceAsync(20_000);
    expect(h.gate.holds()).toEqual([]);
    h.gate.stop();
  });

  it('holds while the operator is active and the CPU is at the ceiling, not while idle', async () => {
    const h = gateHarness({ activeCpuCeilingPercent: 80 });
    h.machine.cpu = 87;
    h.machine.lastInputAt = h.clock.now() - 10_000;
    await h.gate.start();
    expect(h.gate.holds()).toEqual([{ kind: 'cpu', reason: 'Machine busy (CPU 87 % ≥ 80 %) while you use it — resumes below 80 %', resumesAt: null }]);
    // A minute without input: away, so the ceiling no longer applies.
    await h.clock.advanceAsync(50_000);
    expect(h.gate.holds()).toEqual([]);
    h.gate.stop();
  });

  it('lowers the machine slot cap while the operator is active and raises it back when idle', async () => {
    const h = gateHarness({ lendIdleMinutes: 0, activeMachineMaxTurns: 1 });
    h.machine.lastInputAt = h.clock.now();
    await h.gate.start();
    const slots = new MachineSlots(() => h.gate.turnCap(4));
    h.gate.onChange(() => slots.recheck());
    expect(h.gate.turnCap(4)).toBe(1);
    const first = await slots.acquire('a');
    let second: (() => void) | null = null;
    void slots.acquire('a').then((r) => (second = r));
    await h.clock.advanceAsync(0);
    expect(second).toBeNull();
    // 60 s without input: idle, the cap is 4 again and the waiting claim gets its slot.
    await h.clock.advanceAsync(60_000);
    expect(h.gate.turnCap(4)).toBe(4);
    expect(second).not.toBeNull();
    first?.();
    h.gate.stop();
  });

  it('holds below the free-space floor of either folder and resumes only past the hysteresis', async () => {
    const h = gateHarness({ diskMinFreeGb: 2 });
    h.machine.free.set('/data/turns', 1.2 * GB);
    await h.gate.start();
    expect(h.gate.holds()).toEqual([{ kind: 'disk', reason: 'Only 1.2 GB free on /data/turns (needs 2 GB) — resumes above it', resumesAt: null }]);
    h.machine.free.set('/data/turns', 2.1 * GB);
    await h.clock.advanceAsync(20_000);
    expect(h.kinds()).toEqual(['disk']);
    h.machine.free.set('/data/turns', 2.3 * GB);
    await h.clock.advanceAsync(20_000);
    expect(h.gate.holds()).toEqual([]);
    await h.set({ diskMinFreeGb: 0 });
    h.machine.free.set('/data', 0);
    await h.clock.advanceAsync(20_000);
    expect(h.gate.holds()).toEqual([]);
    h.gate.stop();
  });

  it('tells its listeners once per change, not on every poll', async () => {
    const h = gateHarness({ lendOnBattery: false });
    h.machine.power = { onBattery: true, percent: 50 };
    await h.gate.start();
    const before = h.changes();
    await h.clock.advanceAsync(100_000);
    expect(h.changes()).toBe(before);
    h.machine.power = null;
    await h.clock.advanceAsync(20_000);
    expect(h.changes()).toBe(before + 1);
    h.gate.stop();
  });
});
