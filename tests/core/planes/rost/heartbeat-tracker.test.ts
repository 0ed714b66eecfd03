import { describe, expect, it } from 'vitest';
import type { HeartbeatResponse } from '../../../../shared/protocol';
import type { RunnerConnector } from '../../../../main/core/planes/rost/connector';
import { HeartbeatTracker } from '../../../../main/core/planes/rost/heartbeat-tracker';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

// What the snapshot says of the heartbeat while a long-poll claim carries it [v1, protocol §3]:
// no beat of its own goes out then, so there is no "next heartbeat at" to show.

const OFFER: Partial<HeartbeatResponse> = { next_heartbeat_ms: 30_000, claim: { long_poll_max_ms: 60_000, carries_heartbeat: true } };

function setup() {
  const clock = new FakeClock(0);
  const beats: number[] = [];
  let changes = 0;
  const connector = {
    heartbeat: async () => {
      beats.push(clock.now());
      return { runner_id: 'r1', server_time: new Date(clock.now()).toISOString(), ...OFFER };
    },
  } as unknown as RunnerConnector;
  const tracker = new HeartbeatTracker({
    clock,
    log: testLogging().log,
    random: () => 0.5,
    heartbeatMs: () => 30_000,
    credentials: () => ({ runnerId: 'r1', secret: 's' }),
    body: async () => ({ name: 'box' }),
    onRevoked: () => undefined,
    onChange: () => changes++,
    onBeat: () => undefined,
  });
  tracker.start(connector);
  return { clock, tracker, beats, changes: () => changes };
}

describe('heartbeat tracker: the heartbeat on a held claim', () => {
  it('names no next beat while a claim carries the heartbeat, says it rides on the claim, and names one again when the claim is answered', async () => {
    const { clock, tracker, beats, changes } = setup();
    await clock.advanceAsync(0);
    expect(beats).toEqual([0]);
    expect(tracker.carriesHeartbeat).toBe(true);
    expect(tracker.view()).toMatchObject({ nextAt: new Date(30_000).toISOString(), onClaim: false, longPoll: true });

    let answer: (() => void) | null = null;
    const claim = tracker.carrying(
      (heartbeat) =>
        new Promise<null>((resolve) => {
          answer = () => {
            heartbeat.answered({ runner_id: 'r1', server_time: new Date(clock.now()).toISOString(), ...OFFER });
            resolve(null);
          };
        }),
    );
    const before = changes();
    await clock.advanceAsync(0);
    // The window hears of it at once: the snapshot changes when the claim starts carrying the beat.
    expect(changes()).toBeGreaterThan(before);
    expect(tracker.view()).toMatchObject({ nextAt: null, onClaim: true });
    await clock.advanceAsync(45_000, 5_000);
    expect(beats).toEqual([0]);
    expect(tracker.view()).toMatchObject({ nextAt: null, onClaim: true });

    answer!();
    await claim;
    expect(tracker.view()).toMatchObject({ lastOkAt: new Date(45_000).toISOString(), nextAt: new Date(75_000).toISOString(), onClaim: false });
    tracker.stop();
  });

  it('a beat asked for while the claim is held (a pause, new settings) names no next beat either', async () => {
    const { clock, tracker, beats } = setup();
    await clock.advanceAsync(0);
    const claim = tracker.carrying(() => new Promise<null>(() => undefined));
    await clock.advanceAsync(0);
    tracker.beatNow();
    await clock.advanceAsync(1_000, 500);
    expect(beats).toEqual([0, 0]);
    expect(tracker.view()).toMatchObject({ lastOkAt: new Date(0).toISOString(), nextAt: null, onClaim: true });
    tracker.stop();
    expect(tracker.view()).toMatchObject({ nextAt: null, onClaim: false });
    void claim;
  });
});
