import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type ElectronBinary = { found: true; path: string } | { found: false; reason: string };

export const INSTALL_HINT =
  'install it with `node node_modules/electron/install.js` (or set ELECTRON_OVERRIDE_DIST_PATH to an unpacked Electron) to run the smoke test';

/**
 * Where the Electron binary is, without downloading it. `require('electron')` would
 * answer the same question, but when the binary is missing this Electron version tries
 * to download it right there (and, offline, fails only after the attempt), so this reads
 * the same two places its index.js does: path.txt, and ELECTRON_OVERRIDE_DIST_PATH.
 */
export function findElectronBinary(): ElectronBinary {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return { found: false, reason: 'the electron package is not installed' };
  }
  const pathFile = path.join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const executable = override ? path.join(override, relative ?? 'electron') : relative ? path.join(packageDir, 'dist', relative) : null;
  if (!executable) return { found: false, reason: 'Electron binary not installed (node_modules/electron/path.txt is missing: the download never happened)' };
  if (!existsSync(executable)) return { found: false, reason: `Electron binary not installed (${executable} does not exist)` };
  return { found: true, path: executable };
}
