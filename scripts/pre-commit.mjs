// The pre-commit hook (installed by `npm ci` through simple-git-hooks; see package.json):
// formats the staged files with Prettier, then lints them with oxlint (type-aware), so a
// commit cannot add unformatted or lint-failing code. Only staged files are touched.
//
// A file with unstaged changes as well is only checked (its staged version), never
// rewritten: formatting it and staging the result would commit the unstaged half too.
// Lint reads the files as they are on disk.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const LINTED = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

function git(args) {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr.trim()}`);
  return r.stdout;
}

const list = (out) => out.split('\0').filter(Boolean);
const run = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status === 0;

const staged = list(git(['diff', '--cached', '--name-only', '--diff-filter=ACMR', '-z']));
if (staged.length === 0) process.exit(0);
const unstaged = new Set(list(git(['diff', '--name-only', '-z'])));
const whole = staged.filter((f) => !unstaged.has(f));
const partial = staged.filter((f) => unstaged.has(f));

let ok = true;
if (whole.length) {
  ok = run(bin('prettier'), ['--write', '--ignore-unknown', '--log-level', 'warn', '--', ...whole]) && ok;
  git(['add', '--', ...whole]);
}
const unformatted = partial.filter((file) => {
  const staged = git(['show', `:${file}`]);
  const r = spawnSync(bin('prettier'), ['--stdin-filepath', file, '--ignore-unknown', '--log-level', 'warn'], { cwd: root, input: staged, encoding: 'utf8' });
  return r.status !== 0 || r.stdout !== staged;
});
if (unformatted.length) {
  process.stderr.write('pre-commit: the staged part of these files is not formatted; run `npx prettier --write` on them and stage them:\n');
  for (const f of unformatted) process.stderr.write(`  ${f}\n`);
  ok = false;
}

const lint = staged.filter((f) => LINTED.test(f));
if (lint.length) ok = run(bin('oxlint'), ['--type-aware', '--', ...lint]) && ok;

if (!ok) {
  process.stderr.write('pre-commit: fix the above, then commit again (git commit --no-verify skips this check).\n');
  process.exit(1);
}
