import { describe, expect, it } from 'vitest';
import { EventHub } from '../../../main/core/event-hub';
import { endSparesWhenAllPaused } from '../../../main/core/wiring';
import type { ProfileSummary } from '../../../shared/profiles';
import { FakeClock } from '../../helpers/fake-clock';

const profile = (id: string, state: 'paused' | 'idle'): ProfileSummary =>
  ({ id, status: state === 'paused' ? { state, reason: 'Paused' } : { state, reason: 'Idle' } }) as unknown as ProfileSummary;

describe('sandboxes started ahead while the machine is paused', () => {
  it('are ended once every profile is paused, not while one may still claim', () => {
    const clock = new FakeClock();
    const hub = new EventHub(clock, 10);
    let dropped = 0;
    const off = endSparesWhenAllPaused(hub, {
      dropSpares: () => {
        dropped++;
        return Promise.resolve();
      },
    });
    const list = (...profiles: ProfileSummary[]) => {
      hub.emit({ event: 'profiles:changed', payload: profiles });
      clock.advance(10);
    };
    list(profile('default', 'paused'), profile('work', 'idle'));
    expect(dropped).toBe(0);
    list(profile('default', 'paused'), profile('work', 'paused'));
    expect(dropped).toBe(1);
    list();
    expect(dropped).toBe(1);
    off();
    list(profile('default', 'paused'));
    expect(dropped).toBe(1);
  });
});
