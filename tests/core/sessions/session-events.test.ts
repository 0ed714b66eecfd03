import { describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../shared/contract';
import type { RunnerSnapshot } from '../../../shared/runner';
import { SessionEvents } from '../../../main/core/sessions/session-events';

// What every kind of session says when it changes: the snapshot each time, the status only
// when it changed (the tray and the headless lines act on each), then the registry.

const snapshot = (state: 'idle' | 'paused', reason: string) => ({ status: { state, reason } }) as RunnerSnapshot;

describe('session events', () => {
  it('emits the snapshot on every change and the status only when it changed, with the profile', () => {
    const events: HostEvent[] = [];
    let registry = 0;
    const e = new SessionEvents({ profile: 'lab', emit: (event) => events.push(event), onChange: () => registry++ });
    e.changed(snapshot('idle', 'Waiting for work.'));
    e.changed(snapshot('idle', 'Waiting for work.'));
    e.changed(snapshot('paused', 'Paused.'));
    expect(events.map((x) => x.event)).toEqual(['runner:snapshot', 'runner:status', 'runner:snapshot', 'runner:snapshot', 'runner:status']);
    expect(events.filter((x) => x.event === 'runner:status').map((x) => x.payload)).toEqual([
      { state: 'idle', reason: 'Waiting for work.', profile: 'lab' },
      { state: 'paused', reason: 'Paused.', profile: 'lab' },
    ]);
    expect(registry).toBe(3);
  });

  it('tells each heartbeat listener until it stops listening', () => {
    const e = new SessionEvents({ profile: 'default', emit: () => undefined, onChange: () => undefined });
    let a = 0;
    let b = 0;
    const offA = e.onHeartbeat(() => a++);
    e.onHeartbeat(() => b++);
    e.beat();
    offA();
    e.beat();
    expect([a, b]).toEqual([1, 2]);
  });
});
