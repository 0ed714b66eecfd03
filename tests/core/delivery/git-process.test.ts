import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

describe.skipIf(process.platform === 'win32')('git identity from the environment', () => {
  it('commits with GIT_AUTHOR_* / GIT_COMMITTER_* set only in the environment (no repo or global identity)', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'rt-git-identity-'));
    const home = path.join(dir, 'home');
    const repo = path.join(dir, 'repo');
    mkdirSync(home);
    mkdirSync(repo);
    const bare = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    const port = spawnProcessPort({
      sourceEnv: {
        ...bare,
        GIT_AUTHOR_NAME: 'Env Author',
        GIT_AUTHOR_EMAIL: 'author@example.test',
        GIT_COMMITTER_NAME: 'Env Committer',
        GIT_COMMITTER_EMAIL: 'committer@example.test',
      },
    });
    // No guessing from the host name: only an identity that was set counts.
    const noGuess = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
    expect((await port.run('git', ['init', '-q'], { cwd: repo, env: noGuess })).ok).toBe(true);
    expect((await port.run('git', ['config', 'user.useConfigOnly', 'true'], { cwd: repo, env: noGuess })).ok).toBe(true);
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    expect((await port.run('git', ['add', 'a.txt'], { cwd: repo, env: noGuess })).ok).toBe(true);
    const commit = await port.run('git', ['commit', '-q', '-m', 'one'], { cwd: repo, env: noGuess });
    expect(commit.stderr).toBe('');
    expect(commit.ok).toBe(true);
    const who = await port.run('git', ['log', '-1', '--format=%an <%ae> / %cn <%ce>'], { cwd: repo, env: noGuess });
    expect(who.stdout.trim()).toBe('Env Author <author@example.test> / Env Committer <committer@example.test>');
  });
});
