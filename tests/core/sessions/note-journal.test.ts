import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InflightJournal, type InflightNote } from '../../../main/core/planes/sechroom/inflight-journal';
import { NoteJournal } from '../../../main/core/sessions/note-journal';

const note = (leaseId: string, instanceKey = 'a'): InflightNote => ({
  instanceKey,
  memoryId: `m-${leaseId}`,
  leaseId,
  title: null,
  claimedAt: '2026-12-07T10:00:00.000Z',
});
const fileOf = (key: string) => `${Buffer.from(key).toString('base64url')}.json`;

describe('the running journal both planes keep', () => {
  it("a note a kill left only as its atomic write's temp file is still reported, once (Sechroom too)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'rt-journal-'));
    const journal = new InflightJournal(dir);
    await writeFile(path.join(dir, `${fileOf('l1')}.3f9a2c`), JSON.stringify(note('l1')));
    expect(await journal.takeLeftovers('a')).toEqual([note('l1')]);
    expect(await readdir(dir)).toEqual([]);
    expect(await journal.takeLeftovers('a')).toEqual([]);
  });

  it('a temp file beside its note is dropped; an unreadable note is removed; another instance keeps its notes', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'rt-journal-'));
    const journal = new InflightJournal(dir);
    await journal.begin(note('l1'));
    await journal.begin(note('l2', 'b'));
    await writeFile(path.join(dir, `${fileOf('l1')}.77aa`), '{"torn');
    await writeFile(path.join(dir, fileOf('bad')), 'not json');
    expect(await journal.takeLeftovers('a')).toEqual([note('l1')]);
    expect(await readdir(dir)).toEqual([fileOf('l2')]);
  });
});

const Jot = z.object({ key: z.string(), n: z.number() });
type Jot = z.infer<typeof Jot>;

/** The smallest plane journal: the kit's write/remove/read, opened up for the test. */
class JotJournal extends NoteJournal<Jot> {
  constructor(dir: string) {
    super(dir, Jot, (jot) => jot.key);
  }
  put = (jot: Jot) => this.write(jot);
  drop = (key: string) => this.remove(key);
  all = async () => (await this.read()).sort((a, b) => a.key.localeCompare(b.key));
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'rt-notes-'));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('NoteJournal, the kit under both journals', () => {
  it('reads back what was written, one owner-only file per key in an owner-only folder it makes', async () => {
    const dir = path.join(await tempDir(), 'journal');
    const journal = new JotJournal(dir);
    await journal.put({ key: 'a', n: 1 });
    await journal.put({ key: 'b', n: 2 });
    await journal.put({ key: 'a', n: 3 });
    expect(await journal.all()).toEqual([
      { key: 'a', n: 3 },
      { key: 'b', n: 2 },
    ]);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(path.join(dir, fileOf('a')))).mode & 0o777).toBe(0o600);
    await journal.drop('a');
    await journal.drop('never-written');
    expect(await journal.all()).toEqual([{ key: 'b', n: 2 }]);
  });

  it('keeps a key with slashes and dots inside its folder', async () => {
    const dir = await tempDir();
    const journal = new JotJournal(path.join(dir, 'journal'));
    await journal.put({ key: '../../escape/me', n: 1 });
    expect(await readdir(dir)).toEqual(['journal']);
    expect(await journal.all()).toEqual([{ key: '../../escape/me', n: 1 }]);
  });

  it('has nothing to report when its folder was never made', async () => {
    expect(await new JotJournal(path.join(await tempDir(), 'missing')).all()).toEqual([]);
  });

  it('removes a note its schema refuses and one that is not JSON, and reports the rest', async () => {
    const dir = await tempDir();
    const journal = new JotJournal(dir);
    await journal.put({ key: 'good', n: 1 });
    await writeFile(path.join(dir, fileOf('wrong-shape')), JSON.stringify({ key: 'wrong-shape', n: 'one' }));
    await writeFile(path.join(dir, fileOf('not-json')), '{');
    expect(await journal.all()).toEqual([{ key: 'good', n: 1 }]);
    expect(await readdir(dir)).toEqual([fileOf('good')]);
  });

  it('turns a temp file left alone by a killed write into the note, and drops one beside its note', async () => {
    const dir = await tempDir();
    const journal = new JotJournal(dir);
    await journal.put({ key: 'kept', n: 1 });
    await writeFile(path.join(dir, `${fileOf('kept')}.aa11`), JSON.stringify({ key: 'kept', n: 99 }));
    await writeFile(path.join(dir, `${fileOf('torn')}.bb22`), JSON.stringify({ key: 'torn', n: 2 }));
    expect(await journal.all()).toEqual([
      { key: 'kept', n: 1 },
      { key: 'torn', n: 2 },
    ]);
    expect((await readdir(dir)).sort()).toEqual([fileOf('kept'), fileOf('torn')].sort());
    await journal.drop('torn');
    expect(await journal.all()).toEqual([{ key: 'kept', n: 1 }]);
  });
});
