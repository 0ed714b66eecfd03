import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readLegacyHistory } from '../../../main/core/work/turn-history-legacy';
import { finishedTurn } from '../../helpers/history-store';
import { testLogging } from '../../helpers/test-logger';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function legacyFile(content?: string): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'rt-legacy-'));
  dirs.push(dir);
  const file = path.join(dir, 'turn-history.json');
  if (content !== undefined) writeFileSync(file, content);
  return { dir, file };
}

function read(file: string, limit = 100) {
  const logging = testLogging();
  const warnings = () => logging.entries.filter((e) => e.level === 'warn');
  return { rows: readLegacyHistory(file, logging.log, limit), warnings };
}

describe('readLegacyHistory: the version-1 history file, read once to convert it', () => {
  it('returns its rows in order, newest first, up to the limit', async () => {
    const { file } = legacyFile(JSON.stringify({ version: 1, turns: [finishedTurn('c'), finishedTurn('b'), finishedTurn('a')] }));
    const all = read(file);
    expect((await all.rows).map((t) => t.id)).toEqual(['c', 'b', 'a']);
    expect(all.warnings()).toEqual([]);
    expect((await read(file, 2).rows).map((t) => t.id)).toEqual(['c', 'b']);
  });

  it('drops the rows it cannot parse and says how many', async () => {
    const { file } = legacyFile(
      JSON.stringify({ version: 1, turns: [finishedTurn('b'), { id: 42 }, 'junk', finishedTurn('a', { phase: 'nonsense' as never }), finishedTurn('a')] }),
    );
    const { rows, warnings } = read(file);
    expect((await rows).map((t) => t.id)).toEqual(['b', 'a']);
    expect(warnings().map((w) => [w.msg, w.data])).toEqual([['dropped unreadable rows of the turn history', { dropped: 3 }]]);
  });

  it('has no rows and says nothing when there is no file', async () => {
    const { rows, warnings } = read(path.join(legacyFile().dir, 'turn-history.json'));
    expect(await rows).toEqual([]);
    expect(warnings()).toEqual([]);
  });

  it('says so when the file is there but cannot be read, and leaves it where it is', async () => {
    const { dir, file } = legacyFile();
    mkdirSync(file);
    const { rows, warnings } = read(file);
    expect(await rows).toEqual([]);
    expect(warnings().map((w) => w.msg)).toEqual(['the turn history could not be read']);
    expect(readdirSync(dir)).toEqual(['turn-history.json']);
  });

  it.each([
    ['not JSON', '{"version": 1, "turns": ['],
    ['another version', JSON.stringify({ version: 2, turns: [finishedTurn('a')] })],
    ['no list of turns', JSON.stringify({ version: 1, turns: 'a' })],
  ])('sets a damaged file (%s) aside, names the copy, and starts empty', async (_what, content) => {
    const { dir, file } = legacyFile(content);
    const { rows, warnings } = read(file);
    expect(await rows).toEqual([]);
    const names = readdirSync(dir);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^turn-history\.json\.damaged-\d+$/);
    const [warning] = warnings();
    expect(warning?.msg).toBe('the turn history file was damaged; it was set aside and history starts empty');
    expect(warning?.data?.keptAs).toBe(path.join(dir, names[0] ?? ''));
  });
});
