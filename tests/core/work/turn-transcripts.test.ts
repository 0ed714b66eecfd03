import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TranscriptWriter } from '../../../main/core/exec/transcript-writer';
import { transcriptFileName, TurnTranscripts } from '../../../main/core/work/turn-transcripts';
import { testLogging } from '../../helpers/test-logger';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'rt-transcripts-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const KB = 1024;
const quiet = () => testLogging().log;
/** A store in the test's folder, with a memory budget and nobody to poke. */
const transcripts = (budget: number) =>
  new TurnTranscripts(
    dir,
    () => budget,
    () => undefined,
    quiet(),
  );

describe('TurnTranscripts', () => {
  it('a turn printing 10 MB keeps its memory at the budget, every line on disk, and the newest lines to view', async () => {
    const budget = 256 * KB;
    const store = transcripts(budget);
    const writer = new TranscriptWriter((line) => store.add('u1', line), []);
    const chunk = `${'x'.repeat(1000)}\n`.repeat(64);
    let peakKept = 0;
    const chunks = Math.ceil((10 * 1024 * KB) / chunk.length);
    for (let i = 0; i < chunks; i++) {
      writer.delta('stdout', 'output', chunk);
      peakKept = Math.max(peakKept, store.memory().kept);
      store.drain();
      // let the appends run as they would between pipe reads
      await new Promise((resolve) => setImmediate(resolve));
    }
    writer.end();
    const running = await store.view('u1');
    expect(running?.lines.at(-1)?.n).toBe(chunks * 64 - 1);
    expect(running!.earlier).toBeGreaterThan(chunks * 64 - 300);
    await store.finish('u1');
    store.drain();
    // Memory: the lines kept to view stay within the budget (plus the line that went over it),
    // never the output. What waits for the disk is paced by the disk, not bounded here (on a
    // loaded machine it reached 1.5 MB in this loop, which gives the appends one turn each).
    expect(peakKept).toBeLessThan(budget + 64 * KB);
    expect(store.memory()).toEqual({ kept: 0, queued: 0 });
    const file = await readFile(path.join(dir, transcriptFileName('u1')), 'utf8');
    const rows = file.trim().split('\n');
    expect(rows.length).toBe(running!.lines.at(-1)!.n + 1);
    const finished = await store.view('u1');
    expect(finished!.lines.at(-1)!.n).toBe(rows.length - 1);
    expect(finished!.earlier).toBeGreaterThan(0);
  });

  it('past 1 MB of lines waiting for the disk, backlog() holds the runtime until they are written', async () => {
    const store = transcripts(256 * KB);
    const writer = new TranscriptWriter((line) => store.add('u1', line), []);
    const chunk = `${'y'.repeat(1000)}\n`.repeat(64);
    writer.delta('stdout', 'output', chunk);
    // Its first append is under way; what comes meanwhile waits for it.
    expect(store.backlog('u1')).toBeNull();
    for (let i = 0; i < 20; i++) writer.delta('stdout', 'output', chunk);
    const held = store.backlog('u1');
    expect(held).not.toBeNull();
    expect(store.memory().queued).toBeGreaterThan(1024 * KB);
    await held;
    expect(store.memory().queued).toBe(0);
    expect(store.backlog('u1')).toBeNull();
    await store.finish('u1');
    const rows = (await readFile(path.join(dir, transcriptFileName('u1')), 'utf8')).trim().split('\n');
    expect(rows.length).toBe(21 * 64);
  });

  it('sends each turn its changed lines per batch, the newest copy of a growing line, and counts what it had to skip', () => {
    let pokes = 0;
    const store = new TurnTranscripts(
      dir,
      () => 256 * KB,
      () => pokes++,
      quiet(),
    );
    store.add('a', { n: 0, kind: 'text', text: 'Hel', open: true });
    store.add('a', { n: 0, kind: 'text', text: 'Hello', open: true });
    store.add('b', { n: 0, kind: 'command', text: '$ ls' });
    expect(pokes).toBe(3);
    expect(store.drain()).toEqual([
      { id: 'a', lines: [{ n: 0, kind: 'text', text: 'Hello', open: true }], skipped: 0 },
      { id: 'b', lines: [{ n: 0, kind: 'command', text: '$ ls' }], skipped: 0 },
    ]);
    expect(store.drain()).toBeNull();
    for (let n = 1; n <= 1000; n++) store.add('a', { n, kind: 'output', text: `line ${n}` });
    const [update] = store.drain()!;
    expect(update!.lines).toHaveLength(400);
    expect(update!.skipped).toBe(600);
    expect(update!.lines.at(-1)!.text).toBe('line 1000');
  });

  it('keeps what a canceled turn streamed, and sweeps the files of turns no longer kept', async () => {
    const store = transcripts(64 * KB);
    store.add('kept', { n: 0, kind: 'text', text: 'partial answer' });
    store.add('gone', { n: 0, kind: 'text', text: 'old' });
    await store.finish('kept');
    await store.finish('gone');
    expect(await store.view('kept')).toEqual({ id: 'kept', lines: [{ n: 0, kind: 'text', text: 'partial answer' }], earlier: 0 });
    await writeFile(path.join(dir, 'not-ours.txt'), 'x');
    expect(await store.sweep(['kept'])).toBe(1);
    expect((await readdir(dir)).sort()).toEqual([transcriptFileName('kept'), 'not-ours.txt'].sort());
    expect(await store.view('gone')).toBeNull();
  });

  it("checks a turn's file before appending to it: a torn last line is cut, a damaged line set aside, with a warning", async () => {
    const logging = testLogging();
    const store = new TurnTranscripts(
      dir,
      () => 64 * KB,
      () => undefined,
      logging.log,
      () => 1234,
    );
    const file = path.join(dir, transcriptFileName('again'));
    const good = JSON.stringify({ n: 0, kind: 'text', text: 'before the crash' });
    await writeFile(file, `${good}\nnot json at all\n{"n":2,"kind":"te`);
    store.add('again', { n: 3, kind: 'text', text: 'after the restart' });
    await store.finish('again');
    const rows = (await readFile(file, 'utf8')).trim().split('\n');
    expect(rows.map((row) => (JSON.parse(row) as { text: string }).text)).toEqual(['before the crash', 'after the restart']);
    const warnings = logging.entries.filter((e) => e.level === 'warn').map((e) => e.msg);
    expect(warnings.some((m) => /last line of the turn transcript was torn/.test(m))).toBe(true);
    expect(warnings.some((m) => /unreadable lines of the turn transcript/.test(m))).toBe(true);
    expect((await readdir(dir)).some((name) => name.endsWith('.damaged-1234'))).toBe(true);
  });
});
