// esbuild plugins the bundles share (scripts/build-electron.mjs, scripts/build-headless.mjs).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// zod's namespace object re-exports its ~40 locales (360 KiB) and a namespace cannot be
// tree-shaken. We only ever speak English (zod's default), so inside zod the locale index
// resolves to English alone.
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: 'zod-locales', namespace: 'zod-english-only' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, () => ({
      contents: "export { default as en } from 'zod/v4/locales/en.js';",
      resolveDir: root,
    }));
  },
};

// pino-roll require()s the whole of date-fns (600 KiB, CommonJS: nothing shaken off) for
// five functions. Hand it those five from date-fns' ES modules instead.
export const dateFnsForPinoRoll = {
  name: 'date-fns-for-pino-roll',
  setup(b) {
    b.onResolve({ filter: /^date-fns$/ }, (args) =>
      /[\\/]node_modules[\\/]pino-roll[\\/]/.test(args.importer) ? { path: 'date-fns-five', namespace: 'date-fns-for-pino-roll' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'date-fns-for-pino-roll' }, () => ({
      contents: ['format', 'addDays', 'addHours', 'parse', 'isValid'].map((name) => `export { ${name} } from 'date-fns/${name}';`).join('\n'),
      resolveDir: root,
    }));
  },
};

// conf imports ajv (with its formats) and semver at the top, but uses them only for the
// `schema` and `migrations` options, which the headless settings backend never passes
// (main/core/settings/conf-settings-backend.ts; the settings are zod-parsed and migrated by
// the settings store). Inside conf those imports resolve to stand-ins that say so if
// ever called: 400 KiB less to load at every start.
export const confWithoutSchemas = {
  name: 'conf-without-schemas',
  setup(b) {
    const unused = "const unused = () => { throw new Error('conf: schemas and migrations are not bundled (the settings store validates and migrates)'); };";
    const stand = {
      'ajv/dist/2020.js': 'export class Ajv2020 { constructor() { unused(); } }',
      'ajv-formats': 'export default { default: unused };',
      semver: 'export default { eq: unused, clean: unused, satisfies: unused, lte: unused, gt: unused };',
    };
    b.onResolve({ filter: /^(ajv\/dist\/2020\.js|ajv-formats|semver)$/ }, (args) =>
      /[\\/]node_modules[\\/]conf[\\/]/.test(args.importer) ? { path: args.path, namespace: 'conf-without-schemas' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'conf-without-schemas' }, (args) => ({ contents: `${unused}\n${stand[args.path]}`, resolveDir: root }));
  },
};

// pino and write-file-atomic load node:worker_threads at the top for one answer each (is
// this the main thread; its id), and pino loads thread-stream for its worker-thread
// transports, which the core never uses (log-files.ts writes in this thread). The
// headless host runs them on its main thread only: there they get that thread's answers
// (`isMainThread`, thread id 0), and thread-stream a stand-in that says so if ever
// called, so the host loads no worker-thread machinery it does not use.
export const mainThreadOnly = {
  name: 'main-thread-only',
  setup(b) {
    const importer = /[\\/]node_modules[\\/](pino|write-file-atomic)[\\/]/;
    b.onResolve({ filter: /^(node:)?worker_threads$|^thread-stream$/ }, (args) =>
      importer.test(args.importer) ? { path: args.path.replace(/^node:/, ''), namespace: 'main-thread-only' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'main-thread-only' }, (args) => ({
      contents:
        args.path === 'worker_threads'
          ? 'module.exports = { isMainThread: true, threadId: 0 };'
          : "module.exports = class ThreadStream { constructor() { throw new Error('pino: worker-thread transports are not bundled (the core writes its logs in this thread)'); } };",
      loader: 'js',
    }));
  },
};
