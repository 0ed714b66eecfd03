import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { historyLog } from '../../../main/core/work/turn-history-codec';
import { TurnHistoryStore } from '../../../main/core/work/turn-history-store';
import { finishedTurn } from '../../helpers/history-store';
import { testLogging } from '../../helpers/test-logger';

const turn = finishedTurn;

function folder(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'runner-tray-history-test-'));
}

function open(dir: string, limit?: number) {
  const logging = testLogging();
  const store = new TurnHistoryStore(path.join(dir, 'turn-history.jsonl'), logging.log, limit, path.join(dir, 'turn-history.json'));
  return { store, warnings: () => logging.entries.filter((e) => e.level === 'warn').map((e) => e.msg) };
}

const ids = (store: TurnHistoryStore) => store.allRows().map((r) => r.id);
const lines = (dir: string) => readFileSync(path.join(dir, 'turn-history.jsonl'), 'utf8').split('\n').filter(Boolean);

describe('TurnHistoryStore', () => {
  it('appends one line per change, keeps only list rows in memory and reads the whole record from disk', async () => {
    const dir = folder();
    const { store } = open(dir);
    await store.load();
    store.add(turn('a'));
    store.add(turn('b'));
    await store.flush();
    expect(lines(dir)).toHaveLength(2);
    expect(store.rows(0, 10)[0]).not.toHaveProperty('outputTail');
    expect(store.rows(0, 10).map((r) => [r.id, r.headline])).toEqual([
      ['b', 'summary of b'],
      ['a', 'summary of a'],
    ]);
    expect(await store.read('a')).toMatchObject({ outputTail: 'tail of a', summary: 'summary of a\nsecond line' });
    expect(await store.read('gone')).toBeUndefined();

    const again = open(dir).store;
    await again.load();
    expect(ids(again)).toEqual(['b', 'a']);
    expect(await again.read('b')).toMatchObject({ outputTail: 'tail of b' });
  });

  it('a change to a finished row appends a superseding line: the row keeps its place and is right after a restart', async () => {
    const dir = folder();
    const { store } = open(dir);
    await store.load();
    store.add(turn('a'));
    store.add(turn('b'));
    const delivered = { state: 'delivered' as const, attempts: 1, since: '2026-12-01T12:01:00.000Z', reason: null };
    const merged = await store.update('a', { delivery: delivered });
    expect(merged).toMatchObject({ id: 'a', outputTail: 'tail of a', delivery: delivered });
    expect(await store.update('gone', { delivery: delivered })).toBeUndefined();
    expect(lines(dir)).toHaveLength(3);

    const again = open(dir).store;
    await again.load();
    expect(ids(again)).toEqual(['b', 'a']);
    expect(again.rows(1, 1)[0]?.delivery).toEqual(delivered);
    expect(await again.read('a')).toMatchObject({ summary: 'summary of a\nsecond line', delivery: delivered });
  });

  it('a turn added again (same id) moves to the top once', async () => {
    const dir = folder();
    const { store } = open(dir);
    await store.load();
    store.add(turn('a'));
    store.add(turn('b'));
    store.add(turn('a', { summary: 'second' }));
    await store.flush();
    const again = open(dir).store;
    await again.load();
    expect(ids(again)).toEqual(['a', 'b']);
    expect((await again.read('a'))?.summary).toBe('second');
  });

  it('keeps at most the limit and rewrites the log once superseded lines pile up', async () => {
    const dir = folder();
    const { store } = open(dir, 3);
    await store.load();
    for (let i = 0; i < 1_010; i++) store.add(turn(`t${i}`));
    await store.flush();
    expect(ids(store)).toEqual(['t1009', 't1008', 't1007']);
    // Compacted on the way: far fewer lines than appends, and the live rows read right from the rewritten file.
    expect(lines(dir).length).toBeLessThan(1_010);
    expect(await store.read('t1007')).toMatchObject({ summary: 'summary of t1007\nsecond line' });
    const again = open(dir, 3).store;
    await again.load();
    expect(ids(again)).toEqual(['t1009', 't1008', 't1007']);
    expect(await again.read('t1009')).toMatchObject({ outputTail: 'tail of t1009' });
  });

  it('a torn last line (a crash mid-append) is dropped and reported, never the rest; the next append starts clean', async () => {
    const dir = folder();
    const file = path.join(dir, 'turn-history.jsonl');
    writeFileSync(file, historyLog([turn('b'), turn('a')]));
    appendFileSync(file, '{"op":"add","turn":{"id":"c","ki');
    const { store, warnings } = open(dir);
    await store.load();
    expect(ids(store)).toEqual(['b', 'a']);
    expect(warnings().some((w) => w.includes('torn'))).toBe(true);
    store.add(turn('d'));
    await store.flush();
    const again = open(dir).store;
    await again.load();
    expect(ids(again)).toEqual(['d', 'b', 'a']);
  });

  it('a damaged line in the middle is dropped and the file copied aside first; the other rows stay', async () => {
    const dir = folder();
    const file = path.join(dir, 'turn-history.jsonl');
    const [a, b] = historyLog([turn('b'), turn('a')]).split('\n');
    writeFileSync(file, `${a}\nnot json at all\n{"op":"add","turn":{"id":42}}\n${b}\n`);
    const { store, warnings } = open(dir);
    await store.load();
    expect(ids(store)).toEqual(['b', 'a']);
    expect(warnings().some((w) => w.includes('unreadable lines'))).toBe(true);
    const aside = readdirSync(dir).find((f) => f.startsWith('turn-history.jsonl.damaged-'));
    expect(aside && readFileSync(path.join(dir, aside), 'utf8')).toContain('not json at all');
    expect(await store.read('a')).toMatchObject({ summary: 'summary of a\nsecond line' });
  });

  it('changes made before the log is loaded wait for it and land on top of the loaded rows', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'turn-history.jsonl'), historyLog([turn('old2'), turn('old1')]));
    const { store } = open(dir);
    const loading = store.load();
    expect(store.loaded).toBe(false);
    store.add(turn('restart-report'));
    const patched = store.update('old1', { reason: 'lost' });
    await loading;
    expect(ids(store)).toEqual(['restart-report', 'old2', 'old1']);
    expect(await patched).toMatchObject({ id: 'old1', reason: 'lost', summary: 'summary of old1\nsecond line' });
    const again = open(dir).store;
    await again.load();
    expect(ids(again)).toEqual(['restart-report', 'old2', 'old1']);
    expect(again.rows(2, 1)[0]?.reason).toBe('lost');
  });

  it('converts a version-1 file once, keeps it for older builds, and sets a damaged one aside', async () => {
    const dir = folder();
    const legacy = path.join(dir, 'turn-history.json');
    writeFileSync(legacy, JSON.stringify({ version: 1, turns: [turn('b'), { id: 42 }, turn('a')] }));
    const { store, warnings } = open(dir);
    await store.load();
    expect(ids(store)).toEqual(['b', 'a']);
    expect(warnings().some((w) => w.includes('dropped unreadable rows'))).toBe(true);
    expect(await store.read('a')).toMatchObject({ outputTail: 'tail of a' });
    expect(existsSync(legacy)).toBe(true);
    expect(lines(dir)).toHaveLength(2);

    // Converted once: the log is what counts from now on.
    writeFileSync(legacy, JSON.stringify({ version: 1, turns: [turn('z')] }));
    const again = open(dir).store;
    await again.load();
    expect(ids(again)).toEqual(['b', 'a']);

    const other = folder();
    writeFileSync(path.join(other, 'turn-history.json'), '{"version":1,"turns":[');
    const damaged = open(other);
    await damaged.store.load();
    expect(ids(damaged.store)).toEqual([]);
    expect(readdirSync(other).some((f) => f.startsWith('turn-history.json.damaged-'))).toBe(true);
  });
});
