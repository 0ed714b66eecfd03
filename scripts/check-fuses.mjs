// After electron-builder packed the app (`npm run dist`): reads each packaged Electron
// binary's fuses back and fails when one differs from electron-builder.yml's electronFuses
// (RunAsNode off above all: the core never relies on it, see main/core/exec/script-node.ts).
//
//   node scripts/check-fuses.mjs [binary-or-.app …]   (default: everything under release/)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fuses from '@electron/fuses';

const { getCurrentFuseWire, FuseV1Options } = fuses;
// @electron/fuses' FuseState (the byte in the wire), which its index does not export.
const FuseState = { DISABLE: 48, ENABLE: 49 };
const root = fileURLToPath(new URL('..', import.meta.url));

/** `electronFuses:` of electron-builder.yml, as { RunAsNode: false, … } (FuseV1Options names). */
export function expectedFuses(yaml) {
  const block = /^electronFuses:\s*\n((?:[ \t]+\w+:[ \t]*(?:true|false)[ \t]*(?:#.*)?\n?)+)/m.exec(yaml)?.[1] ?? '';
  const expected = {};
  for (const [, key, value] of block.matchAll(/^[ \t]+(\w+):[ \t]*(true|false)/gm)) {
    expected[key.charAt(0).toUpperCase() + key.slice(1)] = value === 'true';
  }
  return expected;
}

/** The fuses of `binary` that differ from `expected`, as lines; [] when all hold. */
export async function fuseMismatches(binary, expected) {
  const wire = await getCurrentFuseWire(binary);
  const wrong = [];
  for (const [name, want] of Object.entries(expected)) {
    const option = FuseV1Options[name];
    if (option === undefined) {
      wrong.push(`${name}: not a fuse @electron/fuses knows`);
      continue;
    }
    const state = wire[option];
    const is = state === FuseState.ENABLE ? true : state === FuseState.DISABLE ? false : null;
    if (is !== want) wrong.push(`${name}: ${is === null ? 'not set in the binary' : is} (electron-builder.yml says ${want})`);
  }
  return wrong;
}

/** The packaged Electron binaries under release/: <platform>-unpacked executables and .app bundles. */
export function packagedBinaries(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = path.join(dir, entry.name);
    for (const inner of readdirSync(sub, { withFileTypes: true })) {
      const file = path.join(sub, inner.name);
      if (inner.isDirectory() && inner.name.endsWith('.app')) found.push(file);
      else if (entry.name.endsWith('-unpacked') && inner.isFile() && isAppExecutable(inner.name, file)) found.push(file);
    }
  }
  return found;
}

function isAppExecutable(name, file) {
  if (/^(chrome-sandbox|chrome_crashpad_handler)$|\.(so|so\.\d+|pak|dat|bin|json|dll|html)$/.test(name)) return false;
  if (name.endsWith('.exe')) return !/^(elevate|squirrel)/i.test(name);
  return (statSync(file).mode & 0o111) !== 0;
}

async function main(argv) {
  const expected = expectedFuses(readFileSync(path.join(root, 'electron-builder.yml'), 'utf8'));
  if (Object.keys(expected).length === 0) throw new Error('electron-builder.yml has no electronFuses block');
  const binaries = argv.length > 0 ? argv : packagedBinaries(path.join(root, 'release'));
  if (binaries.length === 0) {
    process.stderr.write('check-fuses: nothing packaged under release/ (run electron-builder first)\n');
    return 1;
  }
  let failed = 0;
  for (const binary of binaries) {
    const wrong = await fuseMismatches(binary, expected);
    if (wrong.length === 0)
      process.stdout.write(`check-fuses: ${path.relative(root, binary)}: ${Object.keys(expected).length} fuses as electron-builder.yml says\n`);
    else {
      failed++;
      process.stderr.write(`check-fuses: ${path.relative(root, binary)}:\n  ${wrong.join('\n  ')}\n`);
    }
  }
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`check-fuses: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
