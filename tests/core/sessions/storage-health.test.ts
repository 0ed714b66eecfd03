import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StorageHealth, probeFolder, storageErrorCode, type StorageProblem } from '../../../main/core/sessions/storage-health';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

let tmp: string | null = null;
afterEach(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
  tmp = null;
});

const fsError = (code: string, file: string) => Object.assign(new Error(`${code}: cannot write, open '${file}'`), { code });

/** A health over three folders whose probe fails with `failing[dir]` while it is set. */
function harness() {
  const clock = new FakeClock();
  const failing = new Map<string, string>();
  const probes: string[] = [];
  const changes: (StorageProblem | null)[] = [];
  const health = new StorageHealth({
    clock,
    log: testLogging().log,
    random: () => 1,
    folders: () => ['/data/running', '/data/outbox', '/data/turns'],
    probe: (dir) => {
      probes.push(dir);
      const code = failing.get(dir);
      return code ? Promise.reject(fsError(code, `${dir}/.write-probe`)) : Promise.resolve();
    },
    onChange: (problem) => changes.push(problem),
  });
  return { clock, failing, probes, changes, health };
}

describe('the storage health of a profile', () => {
  it('is healthy while every folder takes a write, and says nothing', async () => {
    const { health, probes, changes, clock } = harness();
    expect(await health.check()).toBe(true);
    expect(probes).toEqual(['/data/running', '/data/outbox', '/data/turns']);
    expect(health.problem).toBeNull();
    expect(health.reason).toBeNull();
    expect(changes).toEqual([]);
    expect(clock.timerCount).toBe(0);
  });

  it('names the folder and the error while one cannot be written, retries on a backoff, and comes back by itself', async () => {
    const { health, failing, probes, changes, clock } = harness();
    failing.set('/data/outbox', 'ENOSPC');
    expect(await health.check()).toBe(false);
    expect(health.reason).toBe('Cannot write to /data/outbox: no space left on device (ENOSPC) — taking no work until it can');
    expect(changes).toHaveLength(1);
    // Backoff with random() = 1: 1 s, 2 s, 4 s … each a probe of its own, no new change while the problem stays.
    probes.length = 0;
    await clock.advanceAsync(999);
    expect(probes).toEqual([]);
    await clock.advanceAsync(1);
    expect(probes).toEqual(['/data/running', '/data/outbox']);
    await clock.advanceAsync(2_000);
    expect(probes).toHaveLength(4);
    expect(changes).toHaveLength(1);

    failing.delete('/data/outbox');
    await clock.advanceAsync(4_000);
    expect(health.problem).toBeNull();
    expect(changes).toEqual([expect.objectContaining({ path: '/data/outbox', code: 'ENOSPC' }), null]);
    expect(clock.timerCount).toBe(0);
    // The backoff starts again from its base after a recovery.
    failing.set('/data/running', 'EROFS');
    expect(await health.check()).toBe(false);
    expect(health.reason).toBe('Cannot write to /data/running: read-only file system (EROFS) — taking no work until it can');
    expect(clock.nextDueAt).toBe(clock.now() + 1_000);
  });

  it('probes at once after a writer reports a storage error, and not for other errors', async () => {
    const { health, failing, probes, clock } = harness();
    expect(health.failed(new Error('boom'))).toBe(false);
    expect(health.failed(Object.assign(new Error('ENOENT'), { code: 'ENOENT' }))).toBe(false);
    await clock.settle();
    expect(probes).toEqual([]);
    failing.set('/data/turns', 'EDQUOT');
    expect(health.failed(fsError('EDQUOT', '/data/turns/x'))).toBe(true);
    await clock.settle();
    expect(health.reason).toContain('/data/turns: disk quota exceeded (EDQUOT)');
  });

  it('stops retrying when stopped', async () => {
    const { health, failing, clock } = harness();
    failing.set('/data/running', 'EIO');
    await health.check();
    expect(clock.timerCount).toBe(1);
    health.stop();
    expect(clock.timerCount).toBe(0);
  });

  it('knows the storage error codes', () => {
    for (const code of ['ENOSPC', 'EROFS', 'EACCES', 'EDQUOT', 'EIO']) expect(storageErrorCode(fsError(code, 'x'))).toBe(code);
    expect(storageErrorCode(fsError('ENOENT', 'x'))).toBeNull();
    expect(storageErrorCode(null)).toBeNull();
  });
});

describe('probeFolder', () => {
  it('writes, syncs, renames and removes its file, leaving the folder as it was (made if missing)', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'probe-'));
    const dir = path.join(tmp, 'a', 'b');
    await probeFolder(dir);
    expect(await readdir(dir)).toEqual([]);
  });

  it('fails where the folder cannot be made or written', async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'probe-'));
    await writeFile(path.join(tmp, 'file'), 'x');
    await expect(probeFolder(path.join(tmp, 'file', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
