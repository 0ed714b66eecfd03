// `npm run headless`: builds what changed, then runs the bundled host in this process.
//
// The renderer (vite) and the host (scripts/build-headless.mjs) are each rebuilt only when
// a file they are built from is newer than what was built last: a start with nothing
// changed costs a walk over the source folders' modification times (a few ms), not a
// build. A server runs `node dist/headless/cli.mjs` itself (the service unit, the
// container): there, nothing is built and no npm stays as a parent.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const shared = ['shared', 'package.json', 'package-lock.json', 'tsconfig.base.json'];
const targets = [
  {
    name: 'renderer',
    output: 'dist/renderer/index.html',
    inputs: [...shared, 'renderer', 'vite.renderer.config.ts'],
    build: ['npx', 'vite', 'build', '--config', 'vite.renderer.config.ts'],
  },
  {
    name: 'host',
    output: 'dist/headless/cli.mjs',
    inputs: [...shared, 'main', 'scripts/build-headless.mjs', 'scripts/esbuild-plugins.mjs'],
    build: [process.execPath, 'scripts/build-headless.mjs'],
  },
];

/** The newest modification time under `entry` (a file or a folder), in ms. */
function newest(entry) {
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted file shows as its folder's change
  for (const name of readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, name)));
  return latest;
}

for (const target of targets) {
  const built = statSync(path.join(root, target.output), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const changed = Math.max(...target.inputs.map((input) => newest(path.join(root, input))));
  if (built >= changed) continue;
  process.stderr.write(`runner-tray headless: building the ${target.name} (its sources changed)…\n`);
  const [command, ...args] = target.build;
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

await import(pathToFileURL(path.join(root, 'dist', 'headless', 'cli.mjs')).href);
