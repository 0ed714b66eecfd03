// Bundles the Electron main process and the preload (run by `npm run build:electron`,
// after the renderer's vite build), and copies the tray icons next to them so that the
// packaged app (`files: dist/**`) carries everything it loads.
//
//   dist/electron/main.cjs     main/electron/main.ts  (node22, cjs; electron and keytar external)
//   dist/electron/preload.cjs  preload/preload.ts     (one file; only `electron` may be required)
//   dist/electron/icons/       assets/tray-*.png|ico, app.png
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zodEnglishOnly } from './esbuild-plugins.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'dist', 'electron');
const started = Date.now();

await rm(outDir, { recursive: true, force: true });

// The preload, parsed on every window load, shrinks from ~770 KiB to ~200 KiB without
// zod's locales (it only speaks English); see esbuild-plugins.mjs.
const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'cjs',
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};

const [mainResult] = await Promise.all([
  build({
    ...common,
    entryPoints: ['main/electron/main.ts'],
    outfile: 'dist/electron/main.cjs',
    platform: 'node',
    target: 'node22',
    // electron is provided by the runtime; keytar is a native module loaded at run time
    // (optional: the core falls back when it is missing), so neither can be bundled.
    external: ['electron', 'keytar'],
    // `await import('keytar')` becomes require('keytar'): CommonJS loading of a native
    // module from app.asar.unpacked is Electron's well-trodden path; ESM import() is not.
    supported: { 'dynamic-import': false },
  }),
  build({
    ...common,
    entryPoints: ['preload/preload.ts'],
    outfile: 'dist/electron/preload.cjs',
    // A sandboxed preload runs in a renderer with no Node: browser platform, one file.
    platform: 'browser',
    target: 'chrome130',
    external: ['electron'],
    minify: true,
    plugins: [zodEnglishOnly],
  }),
]);

// A sandboxed preload's require() knows only a few modules; anything else fails at run
// time in the window, where no test here can see it. Fail the build instead.
const preload = await readFile(path.join(outDir, 'preload.cjs'), 'utf8');
const required = [...preload.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]);
const foreign = required.filter((name) => name !== 'electron');
if (foreign.length) {
  console.error(`build-electron: preload.cjs requires ${[...new Set(foreign)].join(', ')}; a sandboxed preload may only require 'electron'`);
  process.exit(1);
}

const iconsDir = path.join(outDir, 'icons');
await mkdir(iconsDir, { recursive: true });
const assets = path.join(root, 'assets');
const trayIcons = (await readdir(assets)).filter((name) => /^tray-.*\.(png|ico)$/.test(name));
if (trayIcons.length === 0) {
  console.error('build-electron: no tray icons in assets/ (run node scripts/make-icons.mjs)');
  process.exit(1);
}
await Promise.all([
  ...trayIcons.map((name) => copyFile(path.join(assets, name), path.join(iconsDir, name))),
  copyFile(path.join(assets, 'icon.png'), path.join(iconsDir, 'app.png')),
]);

const size = (file) => {
  const bytes = Object.entries(mainResult.metafile.outputs).find(([out]) => out.endsWith(file))?.[1].bytes;
  return bytes === undefined ? '' : ` (${(bytes / 1024).toFixed(0)} KiB)`;
};
console.log(
  `build-electron: main.cjs${size('main.cjs')}, preload.cjs (${(preload.length / 1024).toFixed(0)} KiB), ${trayIcons.length + 1} icons in ${Date.now() - started} ms`,
);
