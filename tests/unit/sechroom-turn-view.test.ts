import { describe, expect, it } from 'vitest';
import { turnViewOf, type SechroomTurnRecord } from '../../main/core/planes/sechroom/turn-records';
import { seatLabel, sechroomFacts } from '../../renderer/src/views/turns/turn-text';
import { toTurnRow, TurnViewSchema } from '../../shared/turns';

const record = (patch: Partial<SechroomTurnRecord> = {}): SechroomTurnRecord => ({
  memoryId: 'mem_1',
  leaseId: 'lse_1',
  title: 'Add CSV export',
  decompositionId: 'wlp_1',
  state: 'running',
  verdict: null,
  phase: 'work:started',
  lease: 'held',
  completionMemoryId: null,
  note: null,
  warnings: [],
  claimedAt: '2026-12-03T08:00:00.000Z',
  endedAt: null,
  tokens: { input: 1200, output: 300 },
  summary: null,
  ...patch,
});

describe('a Sechroom task as a TurnView (the same shape as a Rost unit)', () => {
  it('is a valid TurnView and TurnRow: running with its phase signal and the lease held', () => {
    const view = TurnViewSchema.parse(turnViewOf(record()));
    expect(view).toMatchObject({
      id: 'sechroom:lse_1',
      plane: 'sechroom',
      phase: 'running',
      lease: 'active',
      lifecyclePhase: 'work:started',
      leaseState: 'held',
    });
    expect(seatLabel(view)).toBe('Add CSV export');
    expect(sechroomFacts(view)).toEqual(['phase work:started', 'lease held']);
    expect(toTurnRow(view)).toMatchObject({ plane: 'sechroom', headline: null });
  });

  it('says the verdict when completed, canceling when the Work Layer asked, and why an abandoned task ended', () => {
    const done = turnViewOf(
      record({ state: 'completed', verdict: 'soft-fail', lease: 'completed', endedAt: '2026-12-03T08:05:00.000Z', summary: 'Half done.' }),
    );
    expect(done).toMatchObject({ phase: 'failed', verdict: 'soft-fail', summary: 'Half done.', reason: null });
    expect(sechroomFacts(done)).toEqual(['verdict soft-fail', 'phase work:started', 'lease completed']);
    expect(turnViewOf(record({ lease: 'cancel_requested' }))).toMatchObject({ phase: 'canceling', lease: 'cancel_requested' });
    const note = 'ABANDONED mem_1: turn timed out — lease will expire and the task re-offers (work may re-run).';
    const abandoned = turnViewOf(record({ state: 'abandoned', lease: 'left_to_expire', note, endedAt: '2026-12-03T08:05:00.000Z' }));
    expect(abandoned).toMatchObject({ phase: 'failed', reason: note, summary: note, lease: null });
    expect(sechroomFacts(abandoned)).toContain('lease left to expire');
    // A Rost turn has none of these.
    expect(sechroomFacts({ ...abandoned, plane: 'rost' })).toEqual([]);
  });
});
