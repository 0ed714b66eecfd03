import { describe, expect, it } from 'vitest';
import { RECENT_SETTLED, TurnRecords, type SechroomTurnRecord } from '../../main/core/planes/sechroom/turn-records';
import type { OutboxDelivery } from '../../main/core/planes/sechroom/sechroom-outbox';
import { FakeClock } from '../helpers/fake-clock';
import { testLogging } from '../helpers/test-logger';

const claim = (n: number) => ({
  outcome: 'Claimed',
  leaseId: `lse_${n}`,
  claimToken: `tok_${n}`,
  tokenVersion: 1,
  memoryId: `mem_${n}`,
  generationId: `gen_${n}`,
  decompositionId: null,
});

const completion = (n: number): Extract<OutboxDelivery, { kind: 'complete' }> =>
  ({ kind: 'complete', entry: { kind: 'complete', leaseId: `lse_${n}` }, outcome: 'completed', completionMemoryId: `cmp_${n}` }) as never;

describe('the Sechroom executor turn records', () => {
  it('keep only the running and recent turns after 1,000 tasks, however each ended', () => {
    const told: SechroomTurnRecord[] = [];
    const records = new TurnRecords({ clock: new FakeClock(), log: testLogging().log, onTurn: (r) => told.push(r) });
    // One long turn runs through all of it, and one completion is still on its way.
    const long = records.claimed(claim(0));
    records.update(long, { state: 'running' });
    for (let n = 1; n <= 1000; n++) {
      const record = records.claimed(claim(n));
      records.update(record, { state: 'running' });
      if (n % 10 === 0) records.abandon(record, 'the turn failed');
      else if (n % 10 === 1) records.endWithoutCompletion(record, { kind: 'cancel_requested', reason: null } as never, null);
      else {
        records.update(record, { state: 'completing', verdict: 'pass' });
        if (n !== 505) records.delivered(completion(n));
      }
    }

    const list = records.list();
    expect(list.length).toBeLessThanOrEqual(RECENT_SETTLED + 2);
    expect(list.find((r) => r.leaseId === 'lse_0')).toMatchObject({ state: 'running' });
    expect(list.find((r) => r.leaseId === 'lse_505')).toMatchObject({ state: 'completing' });
    expect(list.find((r) => r.leaseId === 'lse_1000')).toMatchObject({ state: 'abandoned' });
    expect(list.find((r) => r.leaseId === 'lse_1')).toBeUndefined();
    // The counts and what the owner was told (the history store) cover every task.
    expect(records.summary).toEqual({ processed: 1001, completed: 1000 - 200 - 1, abandoned: 200 });
    expect(new Set(told.filter((r) => r.state === 'completed').map((r) => r.leaseId)).size).toBe(799);

    // The late word on the completion still lands on its record.
    records.delivered(completion(505));
    expect(records.list().find((r) => r.leaseId === 'lse_505')).toMatchObject({ state: 'completed', completionMemoryId: 'cmp_505' });
  });
});
