import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJsonFile, writePrivateFile } from '../../../main/core/base/json-file';
import { RunnerStateStore } from '../../../main/core/runner/runner-state-store';

// The core's JSON documents: parsed with their schema on read, a damaged one told apart
// from a missing one, written owner-only; the runner state sets a damaged file aside.

const Doc = z.object({ version: z.literal(1), name: z.string() });

describe('JSON files of the core', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-json-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a document, and tells missing, not JSON and not valid apart', async () => {
    const file = path.join(dir, 'doc.json');
    expect(await readJsonFile(file, Doc)).toEqual({ kind: 'missing' });
    writeFileSync(file, '{ nope');
    expect(await readJsonFile(file, Doc)).toEqual({ kind: 'damaged', why: 'it is not JSON' });
    writeFileSync(file, JSON.stringify({ version: 2, name: 'x' }));
    expect(await readJsonFile(file, Doc)).toMatchObject({ kind: 'damaged', why: expect.stringContaining('version') });
    writeFileSync(file, JSON.stringify({ version: 1, name: 'x' }));
    expect(await readJsonFile(file, Doc)).toEqual({ kind: 'ok', value: { version: 1, name: 'x' } });
  });

  it.skipIf(process.platform === 'win32')('writes owner-only, creating its folder owner-only', async () => {
    const file = path.join(dir, 'private', 'doc.json');
    await writePrivateFile(file, '{}\n');
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('the runner state: a damaged file is set aside and the machine starts unpaired', async () => {
    const file = path.join(dir, 'runner-state.json');
    writeFileSync(file, JSON.stringify({ version: 1, identity: { runnerId: '' }, runtimeSessions: {} }));
    const store = new RunnerStateStore(file);
    const { warning } = await store.load();
    expect(warning).toMatch(/^The runner state file was damaged \(.*\); it was kept as .*runner-state\.json\.damaged-\d+ and this machine starts unpaired\.$/);
    expect(store.get().identity).toBeNull();
    expect(readdirSync(dir).filter((f) => f.startsWith('runner-state.json.damaged-'))).toHaveLength(1);
  });
});
