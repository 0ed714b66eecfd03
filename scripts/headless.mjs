// `npm run headless`: builds what changed, then runs the bundled host in this process.
//
// The renderer (vite) and the host (scripts/build-headless.mjs) are each rebuilt only when
// a file they are built from is newer than what was built last: a start with nothing
// changed costs a walk over the source folders' modification times (a few ms), not a
// build. A server runs `node dist/headless/cli.mjs` itself (the service unit, the
// container): there, nothing is built and no npm stays as a parent.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HOST_TARGET, isStale, RENDERER_TARGET } from './build-freshness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const targets = [
  { ...RENDERER_TARGET, build: ['npx', 'vite', 'build', '--config', 'vite.renderer.config.ts'] },
  { ...HOST_TARGET, build: [process.execPath, 'scripts/build-headless.mjs'] },
];

for (const target of targets) {
  if (!isStale(root, target)) continue;
  process.stderr.write(`runner-tray headless: building the ${target.name} (its sources changed)…\n`);
  const [command, ...args] = target.build;
  const result = spawnSync(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

await import(pathToFileURL(path.join(root, 'dist', 'headless', 'cli.mjs')).href);
