import { describe, expect, it } from 'vitest';
import type { LendingHold } from '../../../shared/lending';
import type { LendingPort } from '../../../main/core/lending/lending-gate';
import { ProfileLending } from '../../../main/core/lending/profile-lending';
import { FakeClock } from '../../helpers/fake-clock';

// One profile's lending terms: the host's gate, narrowed by the profile's own hours
// (profileLendSchedule), on a fake clock. Times are local, as the schedule is.

/** A host gate whose holds the test sets, telling its listeners. */
function hostGate() {
  let holds: LendingHold[] = [];
  const listeners = new Set<() => void>();
  const gate: LendingPort = {
    holds: () => [...holds],
    reason: () => holds[0]?.reason ?? null,
    admission: {
      allowsClaim: () => holds.length === 0,
      admits: () => true,
      onChange: (l) => (listeners.add(l), () => listeners.delete(l)),
    },
  };
  return {
    gate,
    listeners,
    set(next: LendingHold[]) {
      holds = next;
      for (const l of [...listeners]) l();
    },
  };
}

function setup(schedule: string) {
  // Monday 7 December 2026, 08:30 local time.
  const clock = new FakeClock(new Date(2026, 11, 7, 8, 30).getTime());
  const host = hostGate();
  let own = schedule;
  const settingsListeners = new Set<() => void>();
  const lending = new ProfileLending({
    clock,
    host: host.gate,
    schedule: () => own,
    onSettingsChange: (l) => (settingsListeners.add(l), () => settingsListeners.delete(l)),
  });
  const heard: boolean[] = [];
  const off = lending.admission.onChange(() => heard.push(lending.admission.allowsClaim()));
  const setSchedule = (next: string) => {
    own = next;
    for (const l of [...settingsListeners]) l();
  };
  return { clock, host, lending, heard, off, setSchedule, settingsListeners };
}

describe("a profile's own lending hours", () => {
  it('hold the profile outside its hours, say so in its words, and let go at the hour by the clock', () => {
    const { clock, lending, heard } = setup('mon 09-18');
    expect(lending.admission.allowsClaim()).toBe(false);
    expect(lending.holds()).toEqual([
      { kind: 'schedule', reason: "Outside this profile's hours — resumes Mon 09:00", resumesAt: new Date(2026, 11, 7, 9).getTime() },
    ]);
    expect(lending.reason()).toBe("Outside this profile's hours — resumes Mon 09:00");
    clock.advance(29 * 60_000);
    expect(heard).toEqual([]);
    clock.advance(60_000);
    expect(heard).toEqual([true]);
    expect(lending.holds()).toEqual([]);
    // And hold again at 18:00, until next Monday 09:00.
    clock.advance(9 * 3_600_000);
    expect(heard).toEqual([true, false]);
    expect(lending.holds()[0]).toMatchObject({ reason: "Outside this profile's hours — resumes Mon 09:00", resumesAt: new Date(2026, 11, 14, 9).getTime() });
  });

  it("never widen the machine's terms: a host hold holds the profile too, and is named first", () => {
    const { host, lending, heard } = setup('mon 08-09');
    expect(lending.admission.allowsClaim()).toBe(true);
    host.set([{ kind: 'battery', reason: 'On battery — resumes on mains power', resumesAt: null }]);
    expect(heard).toEqual([false]);
    expect(lending.reason()).toBe('On battery — resumes on mains power');
    host.set([]);
    expect(heard).toEqual([false, true]);
  });

  it('with no hours of its own follows the machine alone; a change of its hours is heard at once', () => {
    const { lending, heard, setSchedule, clock } = setup('');
    expect(lending.holds()).toEqual([]);
    expect(clock.timerCount).toBe(0);
    setSchedule('never');
    expect(heard).toEqual([false]);
    expect(lending.reason()).toBe("Outside this profile's hours — no hour of the week is open");
    setSchedule('');
    expect(heard).toEqual([false, true]);
  });

  it('keeps no timer and no listener once nobody listens', () => {
    const { clock, host, off, settingsListeners } = setup('mon 09-18');
    expect(clock.timerCount).toBe(1);
    off();
    expect(clock.timerCount).toBe(0);
    expect(host.listeners.size).toBe(0);
    expect(settingsListeners.size).toBe(0);
  });
});
