import { describe, expect, it } from 'vitest';
import { UnitLeaseTimer, type UnitBeat } from '../../../../main/core/planes/rost/unit-lease';
import { FakeClock } from '../../../helpers/fake-clock';

/** A timer on a fake clock whose beats answer `outcome`; every beat is noted with its time and timeout. */
function timer(outcome: (n: number) => UnitBeat, everyMs = 15_000) {
  const clock = new FakeClock();
  const beats: { at: number; timeoutMs: number }[] = [];
  const t = new UnitLeaseTimer(clock, everyMs, (timeoutMs) => {
    beats.push({ at: clock.now(), timeoutMs });
    return Promise.resolve(outcome(beats.length));
  });
  const start = clock.now();
  t.start();
  return { clock, beats, t, start };
}

describe('a Rost unit lease heartbeat', () => {
  it('beats every heartbeat_ms while the beats land', async () => {
    const s = timer(() => 'ok');
    await s.clock.advanceAsync(60_000);
    expect(s.beats.map((b) => b.at - s.start)).toEqual([15_000, 30_000, 45_000, 60_000]);
    s.t.stop();
  });

  it('retries a failed beat within seconds on the lease’s clock (it ends 3 × heartbeat_ms after the last good one), each waiting no longer than the lease has left', async () => {
    const s = timer(() => 'failed');
    await s.clock.advanceAsync(44_000);
    const offsets = s.beats.map((b) => b.at - s.start);
    // A whole interval later (30 s) would leave one more try before the 45 s lease ends.
    expect(offsets.slice(0, 2)).toEqual([15_000, 17_000]);
    expect(s.beats.length).toBeGreaterThan(12);
    for (const b of s.beats) expect(b.timeoutMs).toBeLessThanOrEqual(Math.max(250, s.start + 45_000 - b.at));
    s.t.stop();
  });

  it('counts the lease from the last good beat, and stops when told to', async () => {
    const s = timer((n) => (n === 1 ? 'ok' : n < 4 ? 'failed' : 'stop'));
    await s.clock.advanceAsync(120_000);
    expect(s.beats.map((b) => b.at - s.start)).toEqual([15_000, 30_000, 32_000, 34_000]);
  });
});
