import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A bare origin and the operator's clone of it (one commit on main, pushed), with a git identity of its own. */
export interface GitOrigin {
  dir: string;
  origin: string;
  root: string;
  git(cwd: string, ...args: string[]): string;
  cleanup(): void;
}

export function gitOrigin(): GitOrigin {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'rt-sechroom-it-')));
  const origin = path.join(dir, 'origin.git');
  const root = path.join(dir, 'root');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  git(dir, 'init', '--quiet', '--bare', '--initial-branch=main', origin);
  git(dir, 'clone', '--quiet', origin, root);
  git(root, 'config', 'user.name', 'Operator');
  git(root, 'config', 'user.email', 'op@example.test');
  git(root, 'checkout', '--quiet', '-b', 'main');
  writeFileSync(path.join(root, 'README.md'), '# widgets\n');
  git(root, 'add', 'README.md');
  git(root, 'commit', '--quiet', '-m', 'first');
  git(root, 'push', '--quiet', 'origin', 'main');
  return { dir, origin, root, git, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
