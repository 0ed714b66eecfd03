import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnProcessPort } from '../../../main/core/delivery/git-process';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A `gh` that writes its pid, then runs `body`. */
function fakeGh(body: string): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'rt-git-process-'));
  writeFileSync(path.join(dir, 'gh'), `#!/bin/sh\necho $$ > "${dir}/pid"\n${body}\n`);
  chmodSync(path.join(dir, 'gh'), 0o755);
  return dir;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(process.platform === 'win32')('the process port', () => {
  it('a call that never ends is killed at its time limit, with what it had printed', async () => {
    const bin = fakeGh('echo started >&2\nexec sleep 600');
    const port = spawnProcessPort({ sourceEnv: { PATH: `${bin}:/usr/bin:/bin` }, timeoutMs: 300 });
    const result = await port.run('gh', ['pr', 'create'], { cwd: bin });
    expect(result).toMatchObject({ ok: false, code: null, stderr: 'started\n', missing: false });
    const pid = Number(readFileSync(path.join(bin, 'pid'), 'utf8'));
    expect(alive(pid)).toBe(false);
  });

  it('has no terminal and no stdin to prompt on', async () => {
    const bin = fakeGh('if [ -t 0 ]; then echo stdin-tty; fi; if (: < /dev/tty) 2>/dev/null; then echo has-tty; fi; read line && echo "read:$line"; echo done');
    const port = spawnProcessPort({ sourceEnv: { PATH: `${bin}:/usr/bin:/bin` } });
    const result = await port.run('gh', [], { cwd: bin });
    expect(result.stdout).toBe('done\n');
  });
});
