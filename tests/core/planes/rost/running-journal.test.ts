import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunningJournal, type RunningRecord } from '../../../../main/core/planes/rost/running-journal';

const record = (id: string): RunningRecord => ({
  runnerId: 'runner-1',
  unit: { id, kind: 'turn_execution' },
  attempt: 1,
  runtime: 'claude',
  startedAt: '2026-12-07T00:00:00.000Z',
  pid: 4242,
});
const noteName = (id: string) => `${Buffer.from(id).toString('base64url')}.json`;

describe('the running journal after a kill inside a write', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("reports a unit once whether its note or only the write's temp file is left, and a clear leaves nothing behind", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-journal-'));
    // unit-a: the note and a temp file of a later write of it; unit-b: only the temp file (the rename never happened).
    writeFileSync(path.join(dir, noteName('unit-a')), JSON.stringify(record('unit-a')));
    writeFileSync(path.join(dir, `${noteName('unit-a')}.2176455365`), JSON.stringify(record('unit-a')));
    writeFileSync(path.join(dir, `${noteName('unit-b')}.1a2b3c`), JSON.stringify(record('unit-b')));
    const journal = new RunningJournal(dir);
    const left = await journal.leftovers();
    expect(left.map((r) => r.unit.id).sort()).toEqual(['unit-a', 'unit-b']);
    await journal.clear('unit-a');
    await journal.clear('unit-b');
    // Before: the temp files stayed and every later start reported the units again.
    expect(readdirSync(dir)).toEqual([]);
    expect(await journal.leftovers()).toEqual([]);
  });
});
