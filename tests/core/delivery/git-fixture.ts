import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GitDelivery } from '../../../main/core/delivery/git-delivery';
import { spawnProcessPort, type ProcessPort } from '../../../main/core/delivery/git-process';
import { testLogging } from '../../helpers/test-logger';

/**
 * A real git world in a temp folder: a bare repository as origin, the operator's clone
 * (on a branch of their own, with staged, unstaged and untracked changes), a HOME with a
 * git identity, and a fake `gh` on PATH that records its arguments and environment.
 */
export interface GitWorld {
  dir: string;
  home: string;
  origin: string;
  root: string;
  stateDir: string;
  bin: string;
  /** The environment delivery's port starts from. */
  env: Record<string, string>;
  port: ProcessPort;
  git(cwd: string, ...args: string[]): string;
  /** Every gh call: its argv and the variables it saw. */
  ghCalls(): { argv: string[]; env: Record<string, string> }[];
  setGh(state: 'signed-in' | 'signed-out' | 'absent'): void;
  /** A fingerprint of the operator's checkout: every file (untracked too), .git/HEAD, .git/index, its branches. */
  rootFingerprint(): string;
  /** The fingerprint right after setup. */
  initialFingerprint: string;
  /** A GitDelivery over this world's state folder (through `port`, default the real one). */
  delivery(port?: ProcessPort): GitDelivery;
  cleanup(): void;
}

const FAKE_GH = `#!/bin/sh
dir="$(dirname "$0")"
node -e 'const fs=require("fs");fs.appendFileSync(process.argv[1], JSON.stringify({argv: process.argv.slice(2), env: process.env})+"\\n")' "$dir/gh-calls.jsonl" "$@"
if [ "$1" = auth ]; then
  [ -f "$dir/gh-signed-in" ] && { echo "Logged in to github.com"; exit 0; }
  echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2; exit 1
fi
if [ "$1" = pr ] && [ "$2" = create ]; then
  echo "https://github.com/acme/widgets/pull/42"; exit 0
fi
exit 2
`;

function hashTree(dir: string, rel: string, hash: ReturnType<typeof createHash>): void {
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const name = path.join(rel, entry.name);
    if (name === '.git') continue;
    if (entry.isDirectory()) hashTree(dir, name, hash);
    else hash.update(`${name}\0${readFileSync(path.join(dir, name)).toString('base64')}\0`);
  }
}

export function gitWorld(): GitWorld {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'rt-delivery-')));
  const home = path.join(dir, 'home');
  const bin = path.join(dir, 'bin');
  const origin = path.join(dir, 'origin.git');
  const root = path.join(dir, 'root');
  mkdirSync(home);
  mkdirSync(bin);
  writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Operator\n\temail = op@example.test\n[init]\n\tdefaultBranch = main\n');
  writeFileSync(path.join(bin, 'gh'), FAKE_GH);
  chmodSync(path.join(bin, 'gh'), 0o755);
  const env = { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: home, RUNNER_SECRET_FOR_TEST: 's3cr3t-never-passed' };
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, env: { ...env, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  git(dir, 'init', '--quiet', '--bare', origin);
  git(dir, 'clone', '--quiet', origin, root);
  writeFileSync(path.join(root, 'README.md'), '# widgets\n');
  mkdirSync(path.join(root, 'src'));
  writeFileSync(path.join(root, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(root, 'src', 'old.ts'), 'export const old = 1;\n');
  git(root, 'add', '.');
  git(root, 'commit', '--quiet', '-m', 'first');
  git(root, 'push', '--quiet', 'origin', 'main');
  // The operator is on a branch of their own, mid-change.
  git(root, 'checkout', '--quiet', '-b', 'feature');
  writeFileSync(path.join(root, 'src', 'feature.ts'), 'export const f = 1;\n');
  git(root, 'add', '.');
  git(root, 'commit', '--quiet', '-m', 'feature work');
  writeFileSync(path.join(root, 'README.md'), '# widgets (editing)\n');
  writeFileSync(path.join(root, 'src', 'staged.ts'), 'staged\n');
  git(root, 'add', 'src/staged.ts');
  writeFileSync(path.join(root, 'notes.txt'), 'untracked\n');

  const world: GitWorld = {
    dir,
    home,
    origin,
    root,
    stateDir: path.join(dir, 'data', 'delivery'),
    bin,
    env,
    port: spawnProcessPort({ sourceEnv: env }),
    git,
    ghCalls() {
      try {
        return readFileSync(path.join(bin, 'gh-calls.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { argv: string[]; env: Record<string, string> });
      } catch {
        return [];
      }
    },
    setGh(state) {
      rmSync(path.join(bin, 'gh-signed-in'), { force: true });
      if (state === 'signed-in') writeFileSync(path.join(bin, 'gh-signed-in'), '');
      if (state === 'absent') rmSync(path.join(bin, 'gh'), { force: true });
    },
    rootFingerprint() {
      const hash = createHash('sha256');
      hashTree(root, '', hash);
      for (const f of ['HEAD', 'index']) hash.update(readFileSync(path.join(root, '.git', f)));
      hash.update(git(root, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads/main', 'refs/heads/feature'));
      return hash.digest('hex');
    },
    initialFingerprint: '',
    delivery(port) {
      return new GitDelivery({ stateDir: world.stateDir, log: testLogging().log, git: port ?? world.port });
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  world.setGh('signed-in');
  world.initialFingerprint = world.rootFingerprint();
  return world;
}
