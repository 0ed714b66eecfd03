import { describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../shared/contract';
import { SAMPLE_PERIOD_MS } from '../../../shared/telemetry';
import { CapacitySampler } from '../../../main/core/runner/capacity-sampler';
import { CapacityHistory, type SystemProbe } from '../../../main/core/runner/telemetry';
import { FakeClock } from '../../helpers/fake-clock';

const probe: SystemProbe = { cpuTimes: () => [{ idle: 1, total: 2 }], totalmem: () => 8e9, freemem: () => 4e9, rss: () => 5e7 };

function rig(idlePeriodMs = 30_000) {
  const clock = new FakeClock(Date.parse('2026-12-03T09:00:00Z'));
  const samples: number[] = [];
  const sampler = new CapacitySampler({
    clock,
    history: new CapacityHistory(probe),
    sessions: () => ({ active: 0, max: 2 }),
    emit: (event: HostEvent) => {
      if (event.event === 'telemetry:sample') samples.push(clock.now());
    },
    idlePeriodMs: () => idlePeriodMs,
  });
  return { clock, samples, sampler };
}

describe('capacity sampling', () => {
  it('with no window watching, samples once per heartbeat period, not every 5 s', async () => {
    const { clock, samples, sampler } = rig();
    await sampler.start();
    const t0 = clock.now();
    await clock.advanceAsync(60_000);
    expect(samples.map((t) => t - t0)).toEqual([0, 30_000, 60_000]);
    await sampler.stop();
  });

  it('while a window watches, samples every 5 s (one at once); when the last one goes, back to the heartbeat period', async () => {
    const { clock, samples, sampler } = rig();
    await sampler.start();
    const t0 = clock.now();
    await clock.advanceAsync(10_000);
    const unwatchA = sampler.watch();
    const unwatchB = sampler.watch();
    await clock.advanceAsync(2 * SAMPLE_PERIOD_MS);
    expect(samples.map((t) => t - t0)).toEqual([0, 10_000, 15_000, 20_000]);
    unwatchA();
    await clock.advanceAsync(SAMPLE_PERIOD_MS);
    expect(samples.at(-1)! - t0).toBe(25_000);
    unwatchB();
    unwatchB(); // a second release changes nothing
    await clock.advanceAsync(30_000);
    expect(samples.map((t) => t - t0)).toEqual([0, 10_000, 15_000, 20_000, 25_000, 55_000]);
    await sampler.stop();
  });

  it('stopped, it takes no sample, watched or not', async () => {
    const { clock, samples, sampler } = rig();
    await sampler.start();
    await sampler.stop();
    sampler.watch();
    await clock.advanceAsync(60_000);
    expect(samples).toHaveLength(1);
  });
});
