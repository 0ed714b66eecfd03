import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandFailure } from '../../../main/core/base/dispatch';
import { PauseState } from '../../../main/core/runner/pause-state';
import { RunnerStateStore } from '../../../main/core/runner/runner-state-store';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

let tmp: string | null = null;
afterEach(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
  tmp = null;
});

/** A state store whose writes fail with `failWith` while it is set (the disk, through a seam). */
class FailingStore extends RunnerStateStore {
  failWith: string | null = null;
  override update(change: Parameters<RunnerStateStore['update']>[0]): Promise<void> {
    if (this.failWith) return Promise.reject(Object.assign(new Error(`${this.failWith}: cannot write`), { code: this.failWith, path: this.file }));
    return super.update(change);
  }
}

describe('a pause that cannot be saved', () => {
  it('answers a failure that says so (the pause holds for now), and a resume that cannot be saved fails too', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'pause-'));
    const state = new FailingStore(path.join(tmp, 'runner-state.json'));
    const failures: unknown[] = [];
    const pause = new PauseState({ clock: new FakeClock(), log: testLogging().log, state, onChange: () => {}, onSaveFailed: (e) => failures.push(e) });
    state.failWith = 'EROFS';
    const paused = pause.pause(null, null);
    await expect(paused).rejects.toBeInstanceOf(CommandFailure);
    await expect(paused).rejects.toMatchObject({ code: 'not_saved', message: expect.stringContaining('EROFS') });
    expect(pause.current).not.toBeNull();
    await expect(pause.resume()).rejects.toMatchObject({ code: 'not_saved' });
    expect(failures).toHaveLength(2);

    state.failWith = null;
    await pause.pause(30, 'disk back');
    expect(JSON.parse(await readFile(state.file, 'utf8')).pause).toMatchObject({ note: 'disk back' });
  });
});

describe('the runner state file', () => {
  it('writes again after one write failed (a failed write does not jam every later one)', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'state-'));
    const dir = path.join(tmp, 'profile');
    // A file where the folder should be: the first write fails (ENOTDIR), as on a broken disk.
    await writeFile(dir, 'not a folder');
    const state = new RunnerStateStore(path.join(dir, 'runner-state.json'));
    await expect(state.update((s) => ({ ...s, pause: null }))).rejects.toThrow();
    await rm(dir);
    await mkdir(dir);
    await state.update((s) => ({ ...s, pause: { at: '2026-12-01T12:00:00.000Z', until: null, by: 'you', note: 'saved' } }));
    expect(JSON.parse(await readFile(state.file, 'utf8')).pause.note).toBe('saved');
  });
});
