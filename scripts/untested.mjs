// Which files of main/core no test imports directly: `node scripts/untested.mjs [folder...]`
// reads every file under tests/, resolves its relative imports, and lists the core files none
// of them names (optionally only those under the folders given, e.g. `sessions planes/rost`).
// A test that imports a module only with `import type`, or only mocks it (`vi.mock`), does not count as testing it. Modules
// that export only types are flagged `(types only)`: they hold no logic to test.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CORE = 'main/core';
const SOURCE = /\.(ts|tsx|mts|mjs)$/;
// An import or re-export with a relative specifier; group 1 is the text before the specifier
// (to tell `import type` from a value import), group 2 the specifier.
const IMPORT = /(\bimport\s+type\b[^'"]*?\bfrom\s*|\bexport\s+type\b[^'"]*?\bfrom\s*|\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
const RUNTIME_EXPORT = /^\s*export\s+(?:default|async|const|let|var|function|class|enum|abstract)\b|^\s*export\s+\*/m;
const EXPORT_LIST = /^\s*export\s+(type\s+)?\{([^}]*)\}/gm;

function walk(repoRoot, dir, keep) {
  const out = [];
  for (const name of readdirSync(path.join(repoRoot, dir))) {
    const rel = `${dir}/${name}`;
    if (name === 'node_modules') continue;
    if (statSync(path.join(repoRoot, rel)).isDirectory()) out.push(...walk(repoRoot, rel, keep));
    else if (keep(name)) out.push(rel);
  }
  return out.sort((a, b) => a.localeCompare(b));
}

function resolveImport(fromRel, specifier, exists) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), specifier));
  const stem = base.replace(/\.(js|mjs|ts)$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${base}/index.ts`]) {
    if (exists(candidate)) return candidate;
  }
  return null;
}

/** Strips comments, so an import named in a comment is not taken for one. */
const withoutComments = (source) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

/** True when the module exports nothing at run time (interfaces and type aliases only). */
export function typesOnly(source) {
  const code = withoutComments(source);
  if (RUNTIME_EXPORT.test(code)) return false;
  // `export { a, type B }` still exports a; `export type { A, B }` exports types only.
  for (const [, typeList, names] of code.matchAll(EXPORT_LIST)) {
    if (typeList) continue;
    const items = names
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    if (items.some((n) => !n.startsWith('type '))) return false;
  }
  return true;
}

/** The core files each test file imports with a value import, and which core files exist. */
export function untestedCore(repoRoot) {
  const coreFiles = walk(repoRoot, CORE, (n) => /\.tsx?$/.test(n) && !n.endsWith('.d.ts'));
  const present = new Set(coreFiles);
  const exists = (rel) => present.has(rel);
  const imported = new Set();
  for (const testFile of walk(repoRoot, 'tests', (n) => SOURCE.test(n))) {
    const code = withoutComments(readFileSync(path.join(repoRoot, testFile), 'utf8'));
    for (const match of code.matchAll(IMPORT)) {
      if (/^\s*(import|export)\s+type\b/.test(match[1])) continue;
      const target = resolveImport(testFile, match[2], exists);
      if (target && present.has(target)) imported.add(target);
    }
  }
  return coreFiles.map((file) => ({
    file,
    imported: imported.has(file),
    typesOnly: typesOnly(readFileSync(path.join(repoRoot, file), 'utf8')),
  }));
}

/** The folder a report groups a core file under: `planes/<plane>` for a plane, else the first folder. */
export function groupOf(file) {
  const parts = file.slice(CORE.length + 1).split('/');
  if (parts.length === 1) return '(root)';
  if (parts[0] === 'planes') return parts.length > 2 ? `planes/${parts[1]}` : 'planes';
  return parts[0];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const repoRoot = fileURLToPath(new URL('..', import.meta.url));
  const wanted = process.argv.slice(2).map((f) => f.replace(/\/$/, ''));
  const rows = untestedCore(repoRoot).filter((r) => !wanted.length || wanted.includes(groupOf(r.file)));
  const groups = new Map();
  for (const r of rows) {
    const g = groups.get(groupOf(r.file)) ?? { total: 0, untested: [] };
    g.total += 1;
    if (!r.imported) g.untested.push(r);
    groups.set(groupOf(r.file), g);
  }
  let untested = 0;
  for (const [group, g] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const logic = g.untested.filter((r) => !r.typesOnly).length;
    console.log(`${group}: ${g.untested.length} of ${g.total} imported by no test (${logic} with logic)`);
    for (const r of g.untested) console.log(`  ${r.file}${r.typesOnly ? '  (types only)' : ''}`);
    untested += g.untested.length;
  }
  console.log(`Total: ${untested} of ${rows.length} core files imported by no test`);
}
