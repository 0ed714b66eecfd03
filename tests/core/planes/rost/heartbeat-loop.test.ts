import { describe, expect, it } from 'vitest';
import type { HeartbeatResponse } from '../../../../shared/protocol';
import type { RunnerConnector } from '../../../../main/core/planes/rost/connector';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import { HeartbeatLoop } from '../../../../main/core/planes/rost/heartbeat-loop';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

type Answer = Partial<HeartbeatResponse> | ConnectorError;

function setup(answers: Answer[] = [], heartbeatMs = 30_000) {
  const clock = new FakeClock();
  const beats: number[] = [];
  const failures: { retryAt: number; consecutiveFailures: number }[] = [];
  let revoked = 0;
  const connector = {
    heartbeat: async () => {
      beats.push(clock.now());
      const a = answers.shift() ?? {};
      if (a instanceof ConnectorError) throw a;
      return { runner_id: 'r1', server_time: new Date(clock.now()).toISOString(), ...a };
    },
  } as unknown as RunnerConnector;
  const loop = new HeartbeatLoop({
    connector,
    clock,
    log: testLogging().log,
    random: () => 0.5,
    credentials: () => ({ runnerId: 'r1', secret: 's' }),
    body: async () => ({ name: 'box' }),
    heartbeatMs: () => heartbeatMs,
    onSuccess: () => undefined,
    onFailure: (f) => failures.push(f),
    onRevoked: () => revoked++,
  });
  const t0 = clock.now();
  return { clock, loop, beats: () => beats.map((b) => b - t0), failures, revoked: () => revoked };
}

describe('heartbeat loop', () => {
  it('beats at once, then every heartbeat_ms (jitter centred on it)', async () => {
    const { clock, loop, beats } = setup();
    loop.start();
    await clock.advanceAsync(95_000, 500);
    expect(beats()).toEqual([0, 30_000, 60_000, 90_000]);
    loop.stop();
  });

  it('spreads beats with jitter of at most ±10 %', async () => {
    const clock = new FakeClock();
    const times: number[] = [];
    let r = 0;
    const randoms = [0, 1, 0.25, 0.75];
    const loop = new HeartbeatLoop({
      connector: { heartbeat: async () => (times.push(clock.now()), { runner_id: 'r', server_time: 'now' }) } as unknown as RunnerConnector,
      clock,
      log: testLogging().log,
      random: () => randoms[r++ % randoms.length]!,
      credentials: () => ({ runnerId: 'r', secret: 's' }),
      body: async () => ({}),
      heartbeatMs: () => 10_000,
      onSuccess: () => undefined,
      onFailure: () => undefined,
      onRevoked: () => undefined,
    });
    loop.start();
    await clock.advanceAsync(45_000, 250);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps).toEqual([9_000, 11_000, 9_500, 10_500]);
    loop.stop();
  });

  it("honours the server's next_heartbeat_ms within bounds", async () => {
    const { clock, loop, beats } = setup([{ next_heartbeat_ms: 5_000 }, { next_heartbeat_ms: 3_600_000 }, {}]);
    loop.start();
    await clock.advanceAsync(400_000, 1000);
    expect(beats().slice(0, 4)).toEqual([0, 5_000, 305_000, 335_000]);
    loop.stop();
  });

  it('backs off exponentially on failure, capped, then recovers to the normal cadence', async () => {
    const down = () => new ConnectorError('network', 'ECONNREFUSED');
    const { clock, loop, beats, failures } = setup([down(), down(), down(), down(), down(), {}, {}], 30_000);
    loop.start();
    await clock.advanceAsync(200_000, 250);
    const t = beats();
    const gaps = t.slice(1).map((x, i) => x - t[i]!);
    // 2 s base doubling (mid-jitter), capped at the heartbeat interval, then back to 30 s.
    expect(gaps.slice(0, 5)).toEqual([1_500, 2_500, 4_500, 8_500, 15_500]);
    expect(gaps[5]).toBe(30_000);
    expect(failures.map((f) => f.consecutiveFailures)).toEqual([1, 2, 3, 4, 5]);
    loop.stop();
  });

  it('stops and reports revoked on 401', async () => {
    const { clock, loop, beats, revoked } = setup([new ConnectorError('unauthorized', '401', 401)]);
    loop.start();
    await clock.advanceAsync(120_000, 1000);
    expect(beats()).toEqual([0]);
    expect(revoked()).toBe(1);
    expect(loop.isRunning).toBe(false);
  });

  it('stop wins over a beat in flight and leaves no timer behind', async () => {
    const { clock, loop, beats } = setup();
    loop.start();
    clock.advance(0); // the beat starts and awaits its body
    loop.stop();
    await clock.advanceAsync(120_000, 1000);
    expect(beats()).toEqual([]);
    expect(clock.timerCount).toBe(0);
  });

  it('times no beat while a claim carrying the heartbeat is held; its answer is the beat [v1]', async () => {
    const { clock, loop, beats } = setup();
    loop.start();
    await clock.advanceAsync(1_000, 500);
    expect(beats()).toEqual([0]);
    // Idle: each 60 s long-poll carries the beat and the next claim is sent at once.
    for (let i = 0; i < 3; i++) {
      loop.hold();
      await clock.advanceAsync(60_000, 500);
      loop.release({ runner_id: 'r1', server_time: new Date(clock.now()).toISOString() });
    }
    expect(beats()).toEqual([0]);
    // No claim under way (all slots busy, paused): the beat's own cadence, from the last answer.
    await clock.advanceAsync(31_000, 500);
    expect(beats()).toEqual([0, 211_000]);
    loop.stop();
  });

  it('resumes its cadence where it was when a carrying claim brings no answer, and beatNow still beats at once', async () => {
    const { clock, loop, beats } = setup();
    loop.start();
    await clock.advanceAsync(10_000, 500);
    loop.hold();
    loop.beatNow();
    await clock.advanceAsync(1_000, 500);
    expect(beats()).toEqual([0, 10_000]);
    await clock.advanceAsync(49_000, 500);
    expect(beats()).toEqual([0, 10_000]);
    loop.release(null); // failed or called off: the beat due at 40 s goes out now
    await clock.advanceAsync(1_000, 500);
    expect(beats()).toEqual([0, 10_000, 60_000]);
    loop.stop();
  });
});
