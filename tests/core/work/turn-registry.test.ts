import { describe, expect, it } from 'vitest';
import { TurnRegistry } from '../../../main/core/work/turn-registry';
import type { TurnView } from '../../../shared/turns';
import { historyStore } from '../../helpers/history-store';
import { testLogging } from '../../helpers/test-logger';
import { historyLog } from '../../../main/core/work/turn-history-codec';
import { TurnHistoryStore } from '../../../main/core/work/turn-history-store';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function turn(id: string, patch: Partial<TurnView> = {}): TurnView {
  return {
    id,
    kind: 'turn_execution',
    runtime: null,
    seat: null,
    buildRequestId: null,
    startedAt: '2026-12-01T12:00:00.000Z',
    endedAt: null,
    phase: 'starting',
    pid: null,
    tokens: null,
    costUsd: null,
    outputTail: '',
    summary: null,
    lease: null,
    reason: null,
    ...patch,
  };
}

async function registry(limit?: number) {
  let notified = 0;
  const r = new TurnRegistry(
    () => {
      notified++;
    },
    await historyStore([], limit),
  );
  return { r, notified: () => notified };
}

describe('TurnRegistry', () => {
  it('batches every change since the last drain into one update, then has nothing to say', async () => {
    const { r, notified } = await registry();
    r.add(turn('a'));
    r.patch('a', { phase: 'running', pid: 41 });
    r.patch('a', { outputTail: 'line 1' });
    r.add(turn('b'));
    expect(notified()).toBe(4);
    const update = r.drain();
    expect(update?.active.map((t) => [t.id, t.phase, t.pid, t.outputTail])).toEqual([
      ['a', 'running', 41, 'line 1'],
      ['b', 'starting', null, ''],
    ]);
    expect(update?.removed).toEqual([]);
    expect(update?.finished).toEqual([]);
    expect(r.drain()).toBeNull();
  });

  it('a finished turn leaves the active list, joins history newest first, and is reported once', async () => {
    const { r } = await registry();
    r.add(turn('a'));
    r.add(turn('b'));
    r.drain();
    r.finish('a', { phase: 'succeeded', endedAt: '2026-12-01T12:01:00.000Z', summary: 'done' });
    r.finish('b', { phase: 'failed', reason: 'timed out after 1800 s' });
    const update = r.drain();
    expect(update?.active).toEqual([]);
    expect(update?.removed).toEqual(['a', 'b']);
    expect(update?.finished.map((t) => [t.id, t.phase])).toEqual([
      ['a', 'succeeded'],
      ['b', 'failed'],
    ]);
    expect(r.overview()).toEqual({ active: [], history: [expect.objectContaining({ id: 'b' }), expect.objectContaining({ id: 'a', headline: 'done' })] });
    expect(r.activeCount).toBe(0);
    expect(r.drain()).toBeNull();
  });

  it('a turn patched and finished in one window is reported finished, not also as active', async () => {
    const { r } = await registry();
    r.add(turn('a'));
    r.patch('a', { phase: 'running' });
    r.finish('a', { phase: 'canceled', reason: 'canceled by the operator' });
    const update = r.drain();
    expect(update?.active).toEqual([]);
    expect(update?.removed).toEqual(['a']);
    expect(update?.finished).toHaveLength(1);
  });

  it('ignores patches and finishes for turns it does not hold', async () => {
    const { r, notified } = await registry();
    r.patch('ghost', { phase: 'running' });
    expect(r.finish('ghost', { phase: 'failed' })).toBeUndefined();
    expect(notified()).toBe(0);
    expect(r.drain()).toBeNull();
  });

  it('keeps at most the history limit, dropping the oldest', async () => {
    const { r } = await registry(3);
    for (const id of ['1', '2', '3', '4', '5']) {
      r.add(turn(id));
      r.finish(id, { phase: 'succeeded' });
    }
    expect(r.overview().history.map((t) => t.id)).toEqual(['5', '4', '3']);
    const restored = new TurnRegistry(() => {}, await historyStore([turn('x'), turn('y'), turn('z'), turn('w')], 3));
    expect(restored.overview().history.map((t) => t.id)).toEqual(['x', 'y', 'z']);
  });

  it('a turn re-added after it finished (a retry with the same id) is active again', async () => {
    const { r } = await registry();
    r.add(turn('a'));
    r.finish('a', { phase: 'failed' });
    r.add(turn('a', { phase: 'starting' }));
    const update = r.drain();
    expect(update?.active.map((t) => t.id)).toEqual(['a']);
    expect(update?.removed).toEqual([]);
    expect(r.get('a')?.phase).toBe('starting');
  });

  it('a delivery for a row still loading waits for the history and goes out as an in-place update; a running turn is not taken for a row', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-registry-'));
    const file = path.join(dir, 'turn-history.jsonl');
    writeFileSync(file, historyLog([turn('old', { phase: 'succeeded', endedAt: '2026-12-01T12:01:00.000Z', summary: 'kept' })]));
    const store = new TurnHistoryStore(file, testLogging().log);
    const r = new TurnRegistry(() => {}, store);
    const loading = r.historyLoaded();
    r.add(turn('live'));
    expect(r.patchHistory('live', { reason: 'not yet' })).toBe(false);
    const delivery = { state: 'delivered' as const, attempts: 1, since: '2026-12-01T12:01:00.000Z', reason: null };
    expect(r.patchHistory('old', { delivery })).toBe(true);
    // Not kept after all: the row given to add instead goes on top.
    const report = turn('report', { phase: 'failed', endedAt: '2026-12-01T12:02:00.000Z' });
    expect(r.patchHistory('report', { phase: 'failed' }, report)).toBe(true);
    await loading;
    await store.flush();
    const update = r.drain();
    expect(update?.updated).toEqual([expect.objectContaining({ id: 'old', summary: 'kept', delivery })]);
    expect(update?.finished.map((t) => t.id)).toEqual(['report']);
    expect(r.overview().history.map((t) => [t.id, t.delivery?.state ?? null])).toEqual([
      ['report', null],
      ['old', 'delivered'],
    ]);
  });
});
