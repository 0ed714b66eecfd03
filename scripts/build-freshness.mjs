// Whether a build output is older than what it is built from, so `npm run headless` and
// `npm run demo` rebuild only what changed: a start with nothing changed costs a walk over
// the source folders' modification times (a few ms), not a build.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const shared = ['shared', 'package.json', 'package-lock.json', 'tsconfig.base.json'];

/** The window: what `vite build` reads and where it writes. */
export const RENDERER_TARGET = {
  name: 'renderer',
  output: 'dist/renderer/index.html',
  inputs: [...shared, 'renderer', 'vite.renderer.config.ts'],
};

/** The bundled headless host. */
export const HOST_TARGET = {
  name: 'host',
  output: 'dist/headless/cli.mjs',
  inputs: [...shared, 'main', 'scripts/build-headless.mjs', 'scripts/esbuild-plugins.mjs'],
};

/** The newest modification time under `entry` (a file or a folder), in ms. */
function newest(entry) {
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs; // a deleted file shows as its folder's change
  for (const name of readdirSync(entry)) latest = Math.max(latest, newest(path.join(entry, name)));
  return latest;
}

/** True when `target.output` is missing or older than one of its inputs. */
export function isStale(root, target) {
  const built = statSync(path.join(root, target.output), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const changed = Math.max(...target.inputs.map((input) => newest(path.join(root, input))));
  return built < changed;
}
