// Bundles the headless host (run by `npm run build:headless` and, when its sources changed,
// by `npm run headless`): one ES module with the whole core, started with plain `node`.
//
//   dist/headless/cli.mjs        main/headless/cli.ts (node20, esm; keytar external), executable with a
//                                shebang: package.json's bin `runner-tray-headless`
//   dist/headless/chunks/*.mjs   what the host loads when first used (import() boundaries)
//   dist/headless/startup-flags.mjs  the V8 settings, imported first by cli.mjs (see below)
//
// The files are written beside a stamp (dist/headless/.sources) that lists nothing but
// the newest source time: scripts/headless.mjs compares it to decide whether to rebuild.
import { build } from 'esbuild';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { confWithoutSchemas, dateFnsForPinoRoll, mainThreadOnly, zodEnglishOnly } from './esbuild-plugins.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const started = Date.now();

await rm(path.join(root, 'dist', 'headless'), { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { cli: 'main/headless/cli.ts' },
  outdir: 'dist/headless',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // keytar is a native module loaded at run time (optional: the core falls back without it).
  external: ['keytar'],
  // CommonJS packages in an ES module bundle call require() for Node's built-ins and read
  // __filename/__dirname: give them what they would have in a CommonJS file here.
  banner: {
    js: [
      // `runner-tray-headless` (package.json bin) is this file: it starts with node from PATH.
      '#!/usr/bin/env node',
      "import { createRequire as __rtRequire } from 'node:module';",
      "import { fileURLToPath as __rtPath } from 'node:url';",
      'const require = __rtRequire(import.meta.url);',
      'const __filename = __rtPath(import.meta.url);',
      "const __dirname = __rtPath(new URL('.', import.meta.url));",
    ]
      .join(' ')
      .replace('#!/usr/bin/env node ', '#!/usr/bin/env node\n'),
  },
  // Less to compile at every start; names are kept for readable stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [zodEnglishOnly, dateFnsForPinoRoll, confWithoutSchemas, mainThreadOnly],
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
// The V8 settings (main/headless/startup-flags.ts) as a file of their own, imported first by
// cli.mjs: an ES module evaluates its imports in order, so they come before any chunk's code
// (inlined in cli.mjs they would run after the shared chunks it imports). The import goes on
// the banner's line, so the source map's lines stay where they were.
await build({
  absWorkingDir: root,
  entryPoints: ['main/headless/startup-flags.ts'],
  outfile: 'dist/headless/startup-flags.mjs',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  logLevel: 'warning',
});
const cliFile = path.join(root, 'dist', 'headless', 'cli.mjs');
const cli = await readFile(cliFile, 'utf8');
const bannerLine = cli.indexOf('\n') + 1;
await writeFile(cliFile, `${cli.slice(0, bannerLine)}import './startup-flags.mjs'; ${cli.slice(bannerLine)}`);
// Executable, so npm's bin link (npm link, npm install -g) and a container's PATH can run it.
await chmod(path.join(root, 'dist', 'headless', 'cli.mjs'), 0o755);
const outputs = Object.entries(result.metafile.outputs).filter(([file]) => file.endsWith('.mjs'));
const entry = outputs.find(([file]) => file.endsWith('cli.mjs'))?.[1].bytes ?? 0;
console.log(
  `build-headless: cli.mjs (${(entry / 1024).toFixed(0)} KiB) and ${outputs.length - 1} chunk(s) loaded when first used, in ${Date.now() - started} ms`,
);
