import { readFileSync } from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../main/core/base/ports';
import { runChild } from '../../../main/core/exec/child-run';
import { testLogging } from '../../helpers/test-logger';

// A reader that is behind (the transcript's disk) holds the runtime back: the stream is
// paused, the pipe fills, and the runtime waits on its own write instead of its output
// piling up in the host's memory.

/** Where a process waiting on a full output sleeps in the kernel (Linux): node's stdio pipes are socket pairs. */
const BLOCKED_ON_WRITE = /pipe_write|sock_alloc_send/;

/** Where the process sleeps in the kernel now. */
const wchan = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/wchan`, 'utf8');
  } catch {
    return '';
  }
};

describe.runIf(os.platform() === 'linux')('runChild with a reader that is behind', () => {
  it('pauses the output until the reader catches up, so the runtime waits on its pipe; then reads all of it', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let read = 0;
    let pid = 0;
    // 10 MB with blocking writes: a process whose output is full sleeps in its write.
    const run = runChild({
      command: 'head',
      args: ['-c', String(10 * 1024 * 1024), '/dev/zero'],
      cwd: os.tmpdir(),
      env: { PATH: process.env.PATH ?? '' },
      timeoutMs: 60_000,
      signal: new AbortController().signal,
      killGraceMs: 1_000,
      clock: systemClock,
      log: testLogging().log,
      onSpawn: (p) => (pid = p),
      onStdout: (chunk) => {
        read += chunk.length;
        return held;
      },
      onStderr: () => undefined,
    });
    await expect.poll(() => pid > 0 && BLOCKED_ON_WRITE.test(wchan(pid)), { timeout: 20_000 }).toBe(true);
    // Blocked with most of its output unwritten: the host holds one chunk, the pipe the rest.
    expect(read).toBeLessThan(1024 * 1024);
    release();
    expect(await run).toMatchObject({ endedBy: 'exit', exitCode: 0 });
    expect(read).toBe(10 * 1024 * 1024);
  });
});
