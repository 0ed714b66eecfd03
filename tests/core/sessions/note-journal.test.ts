import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { InflightJournal, type InflightNote } from '../../../main/core/planes/sechroom/inflight-journal';

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
