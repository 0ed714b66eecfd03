import { describe, expect, it } from 'vitest';
import type { LendingHold } from '../../../shared/lending';
import { stopTurnsOnHold } from '../../../main/core/lending/lending-stops';
import { lendingAdmission } from '../../../main/core/planes/sechroom/runtime-admission';
import { allAdmit, type ClaimAdmission } from '../../../main/core/work/claim-admission';
import { testLogging } from '../../helpers/test-logger';

/** A gate whose holds a test sets, telling its listeners on each set. */
function fakeGate() {
  let holds: LendingHold[] = [];
  const listeners = new Set<() => void>();
  return {
    holds: () => holds,
    onChange: (l: () => void) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    set(next: LendingHold[]) {
      holds = next;
      listeners.forEach((l) => l());
    },
  };
}

const outside: LendingHold = { kind: 'schedule', reason: 'Outside your lending hours — resumes Mon 09:00', resumesAt: 1_000 };
const battery: LendingHold = { kind: 'battery', reason: 'On battery (34 %) — resumes on mains power', resumesAt: null };

describe('a lending hold and the running turns', () => {
  it('leaves running turns to finish while lendStopsRunningTurns is off', () => {
    const gate = fakeGate();
    const canceled: string[] = [];
    stopTurnsOnHold({ gate, stopsRunningTurns: () => false, cancelAll: (r) => (canceled.push(r), 1), log: testLogging().log });
    gate.set([outside]);
    expect(canceled).toEqual([]);
  });

  it('cancels them through the cancel path when a hold begins while it is on, once per hold', () => {
    const gate = fakeGate();
    const canceled: string[] = [];
    stopTurnsOnHold({ gate, stopsRunningTurns: () => true, cancelAll: (r) => (canceled.push(r), 2), log: testLogging().log });
    gate.set([outside]);
    gate.set([outside]);
    expect(canceled).toEqual([`lending terms: ${outside.reason}`]);
    gate.set([]);
    gate.set([battery]);
    expect(canceled).toHaveLength(2);
  });
});

describe('lending joined to claiming', () => {
  it('Rost: claims only while usage and lending both admit, and either change wakes the loop', () => {
    let usageOk = true;
    let lendingOk = true;
    const heard: string[] = [];
    const make = (ok: () => boolean, name: string): ClaimAdmission => ({
      allowsClaim: ok,
      admits: () => true,
      onChange: () => {
        heard.push(name);
        return () => undefined;
      },
    });
    const both = allAdmit(
      make(() => usageOk, 'usage'),
      make(() => lendingOk, 'lending'),
    );
    expect(both.allowsClaim()).toBe(true);
    lendingOk = false;
    expect(both.allowsClaim()).toBe(false);
    lendingOk = true;
    usageOk = false;
    expect(both.allowsClaim()).toBe(false);
    both.onChange(() => undefined);
    expect(heard).toEqual(['usage', 'lending']);
  });

  it('Sechroom: a hold defers the claim with its reason and when it lets go; no hold asks the usage account', async () => {
    const gate = fakeGate();
    let asked = 0;
    const admission = lendingAdmission(gate, { check: () => (asked++, Promise.resolve({ ok: true as const })) });
    gate.set([outside, battery]);
    expect(await admission.check()).toEqual({ ok: false, reason: outside.reason, retryAt: 1_000 });
    expect(asked).toBe(0);
    gate.set([]);
    expect(await admission.check()).toEqual({ ok: true });
    expect(asked).toBe(1);
  });
});
