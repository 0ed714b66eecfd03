import { builtinModules } from 'node:module';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The layering rules of DESIGN.md, as data, checked by layering.test.ts. */
export interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const isNode = (s: string) => s.startsWith('node:') || NODE_BUILTINS.has(s) || NODE_BUILTINS.has(s.split('/')[0] ?? '');
const isElectron = (s: string) => s === 'electron' || s.startsWith('electron/');

const SPECIFIER =
  /(?:^|[\s;(])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/gm;

export function importSpecifiers(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(SPECIFIER)) {
    const spec = match[1] ?? match[2] ?? match[3] ?? match[4];
    if (spec) found.push(spec);
  }
  return found;
}

/** Which top-level area a repo-relative path belongs to. */
function areaOf(rel: string): string {
  const parts = rel.split('/');
  if (parts[0] === 'main') return `main/${parts[1] ?? ''}`;
  return parts[0] ?? '';
}

function resolvedArea(fromRel: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), specifier));
  return areaOf(target);
}

export function checkFile(rel: string, source: string): Violation[] {
  const area = areaOf(rel);
  const out: Violation[] = [];
  const flag = (specifier: string, rule: string) => out.push({ file: rel, specifier, rule });
  for (const spec of importSpecifiers(source)) {
    const target = resolvedArea(rel, spec);
    if (isElectron(spec) && area !== 'main/electron' && area !== 'preload') {
      flag(spec, 'only main/electron and preload import electron');
    }
    if (area === 'shared') {
      if (isNode(spec)) flag(spec, 'shared/ is pure: no Node modules');
      if (spec === 'react' || spec.startsWith('react-dom')) flag(spec, 'shared/ is pure: no React or DOM');
      if (target && target !== 'shared') flag(spec, 'shared/ imports only from shared/');
    }
    if (area === 'renderer') {
      if (isNode(spec)) flag(spec, 'renderer/ never imports Node');
      if (target && target !== 'renderer' && target !== 'shared') flag(spec, 'renderer/ talks to main only through the bridge');
    }
    if (area === 'main/core' && target && !['main/core', 'shared'].includes(target)) {
      flag(spec, 'main/core depends on nothing but shared/ (the shells depend on it, not the reverse)');
    }
    if (area === 'preload' && target && !['preload', 'shared'].includes(target)) {
      flag(spec, 'preload sees only the contract');
    }
    if (['main/core', 'main/electron', 'main/headless', 'renderer', 'preload', 'shared'].includes(area) && target === 'emulator') {
      flag(spec, 'the app never imports the emulator (it is not shipped)');
    }
  }
  return out;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const ROOTS = ['shared', 'main', 'renderer', 'preload', 'emulator'];

export function listSources(repoRoot: string): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'dist') continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (SOURCE.test(name)) files.push(path.relative(repoRoot, full).split(path.sep).join('/'));
    }
  };
  for (const root of ROOTS) {
    try {
      walk(path.join(repoRoot, root));
    } catch {
      // An area that does not exist yet has nothing to check.
    }
  }
  return files;
}

export function checkRepo(repoRoot: string): Violation[] {
  return listSources(repoRoot).flatMap((rel) => checkFile(rel, readFileSync(path.join(repoRoot, rel), 'utf8')));
}
