import { describe, expect, it } from 'vitest';
import { firstBeatSettled } from '../../main/core/bootstrap';
import { EventHub } from '../../main/core/event-hub';
import type { RunnerSnapshot } from '../../shared/runner';
import { FakeClock } from '../helpers/fake-clock';

/** A snapshot event carrying only what firstBeatSettled reads (the heartbeat). */
function snapshot(heartbeat: Partial<RunnerSnapshot['heartbeat']>) {
  return {
    event: 'runner:snapshot',
    payload: { profile: 'default', heartbeat: { lastOkAt: null, nextAt: null, onClaim: false, consecutiveFailures: 0, ...heartbeat } },
  } as unknown as Parameters<EventHub['emit']>[0];
}

describe('the first heartbeat settled (what start-up detection waits for)', () => {
  it('resolves once a snapshot says a beat was answered, not before', async () => {
    const clock = new FakeClock(0);
    const hub = new EventHub(clock);
    let settled = false;
    void firstBeatSettled(hub, clock, 3_000).then(() => (settled = true));
    hub.emit(snapshot({}));
    await clock.advanceAsync(100);
    expect(settled).toBe(false);
    hub.emit(snapshot({ lastOkAt: new Date(100).toISOString() }));
    await clock.advanceAsync(100);
    expect(settled).toBe(true);
    // Its listener and timer are gone.
    expect(clock.timerCount).toBe(0);
  });

  it('resolves on a failed first beat, and after its bound when no beat comes (unpaired, Sechroom alone)', async () => {
    const clock = new FakeClock(0);
    const hub = new EventHub(clock);
    let failed = false;
    void firstBeatSettled(hub, clock, 3_000).then(() => (failed = true));
    hub.emit(snapshot({ consecutiveFailures: 1 }));
    await clock.advanceAsync(100);
    expect(failed).toBe(true);

    let bounded = false;
    void firstBeatSettled(hub, clock, 3_000).then(() => (bounded = true));
    await clock.advanceAsync(2_900);
    expect(bounded).toBe(false);
    await clock.advanceAsync(200);
    expect(bounded).toBe(true);
  });
});
