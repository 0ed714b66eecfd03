import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { historyLog } from '../../main/core/work/turn-history-codec';
import { TurnHistoryStore } from '../../main/core/work/turn-history-store';
import type { TurnView } from '../../shared/turns';
import { testLogging } from './test-logger';

/** A finished turn with a tail and a two-line summary. */
export function finishedTurn(id: string, patch: Partial<TurnView> = {}): TurnView {
  return {
    id,
    kind: 'turn_execution',
    runtime: 'claude',
    seat: null,
    buildRequestId: null,
    startedAt: '2026-12-01T12:00:00.000Z',
    endedAt: '2026-12-01T12:01:00.000Z',
    phase: 'succeeded',
    pid: null,
    tokens: null,
    costUsd: null,
    outputTail: `tail of ${id}`,
    summary: `summary of ${id}\nsecond line`,
    lease: null,
    reason: null,
    ...patch,
  };
}

/** A loaded history store in a fresh folder, holding `turns` (newest first). */
export async function historyStore(turns: readonly TurnView[] = [], limit?: number): Promise<TurnHistoryStore> {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'runner-tray-history-')), 'turn-history.jsonl');
  if (turns.length > 0) writeFileSync(file, historyLog(turns));
  const store = new TurnHistoryStore(file, testLogging().log, limit);
  await store.load();
  return store;
}
