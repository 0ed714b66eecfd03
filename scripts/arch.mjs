// The core's architecture, read off its imports: `npm run arch` draws the folder graph of
// main/core into docs/architecture.md and fails on any import that runs up the layers, sideways
// between two folders of one layer, or between the two planes. tests/unit/layering.test.ts runs
// the same check on every `npm test`.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders of main/core from the ground up. A folder imports only folders of a lower layer
 * (and itself): a new folder must be placed here before anything can import it.
 */
export const LAYERS = [
  { folder: 'base', layer: 0, holds: 'ports (clock, logger, timers), CommandFailure, JSON and JSON-lines files, backoff' },
  { folder: 'connectors', layer: 1, holds: 'the HTTP JSON transport and its errors' },
  { folder: 'logging', layer: 1, holds: 'the logger with redaction' },
  { folder: 'secrets', layer: 1, holds: 'the OS keychain and its file fallback' },
  { folder: 'settings', layer: 1, holds: 'the settings store and the environment overrides' },
  { folder: 'updates', layer: 2, holds: "the headless host's update check against the npm registry" },
  { folder: 'sign-in', layer: 2, holds: 'OAuth, the device-code flow, the token vault' },
  { folder: 'exec', layer: 2, holds: 'running a turn: claude, codex exec and app-server, isolation, the process tree' },
  { folder: 'delivery', layer: 3, holds: 'git: worktrees, commits, pushes, pull requests' },
  { folder: 'runner', layer: 3, holds: 'runtime detection, capacity telemetry, pause, the breaker, state files' },
  { folder: 'work', layer: 3, holds: 'turns: registry, history, transcripts, prompts, claim admission' },
  { folder: 'usage', layer: 4, holds: 'usage meters and admission' },
  { folder: 'lending', layer: 4, holds: 'the lending terms: schedule, idle, battery, CPU and disk, and the gate on new work' },
  { folder: 'sessions', layer: 5, holds: 'what both planes share: claim loop, machine slots, lease cadence, profiles, the session contract' },
  { folder: 'diagnostics', layer: 6, holds: 'the diagnostics bundle: versions, settings, profiles, runtimes, storage, logs, redacted in a zip' },
  { folder: 'planes/rost', layer: 6, holds: "Rost's Forge: session, heartbeat, pairing, claims, leases, outbox, journal" },
  { folder: 'planes/sechroom', layer: 6, holds: "Sechroom's Work Layer: executor, offers, leases, closeout, outbox, Work view" },
  { folder: 'planes', layer: 7, holds: 'the factory table: which session a profile of each plane gets' },
  { folder: 'operator', layer: 8, holds: "the operator's Requests and Work views over both planes" },
  { folder: '(root)', layer: 9, holds: 'the composition root: bootstrap, commands, core API, host, quit policy' },
];

const CORE = 'main/core';
const SOURCE = /\.(ts|tsx|mts)$/;
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|\bexport\s+\*\s+from\s*)['"](\.{1,2}\/[^'"]+)['"]/gm;

/** The folder a core file belongs to: `planes/<plane>` for a plane's files, else its first folder. */
export function folderOf(rel) {
  const parts = rel.slice(CORE.length + 1).split('/');
  if (parts.length === 1) return '(root)';
  if (parts[0] === 'planes') return parts.length > 2 ? `planes/${parts[1]}` : 'planes';
  return parts[0];
}

function listCore(repoRoot) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(path.join(repoRoot, dir))) {
      const rel = `${dir}/${name}`;
      if (statSync(path.join(repoRoot, rel)).isDirectory()) walk(rel);
      else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(rel);
    }
  };
  walk(CORE);
  return out.sort((a, b) => a.localeCompare(b));
}

function resolve(files, fromRel, specifier) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

/** Every core file with its size and folder, and every import between two core files. */
export function coreGraph(repoRoot) {
  const list = listCore(repoRoot);
  const files = new Set(list);
  const nodes = [];
  const edges = [];
  for (const rel of list) {
    const source = readFileSync(path.join(repoRoot, rel), 'utf8');
    nodes.push({ file: rel, folder: folderOf(rel), lines: source.split('\n').length - (source.endsWith('\n') ? 1 : 0) });
    for (const match of source.matchAll(SPECIFIER)) {
      const target = resolve(files, rel, match[1]);
      if (target) edges.push({ from: rel, to: target });
    }
  }
  return { nodes, edges };
}

const layerOf = new Map(LAYERS.map((l) => [l.folder, l.layer]));

/** The imports that break the layering: up, sideways, between planes, or into an unplaced folder. */
export function archViolations(graph) {
  const out = [];
  for (const node of graph.nodes) {
    if (!layerOf.has(node.folder)) out.push({ from: node.file, to: node.file, rule: `folder ${node.folder} has no layer in scripts/arch.mjs` });
  }
  for (const { from, to } of graph.edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a === b) continue;
    const la = layerOf.get(a);
    const lb = layerOf.get(b);
    if (la === undefined || lb === undefined) continue;
    if (a.startsWith('planes/') && b.startsWith('planes/')) out.push({ from, to, rule: 'a plane never imports another plane' });
    else if (lb > la) out.push({ from, to, rule: `${a} (layer ${la}) imports ${b} (layer ${lb}) above it` });
    else if (lb === la) out.push({ from, to, rule: `${a} imports ${b} beside it (same layer ${la})` });
  }
  return out;
}

/** Folder-level edges with their import counts. */
export function folderEdges(graph) {
  const counts = new Map();
  for (const { from, to } of graph.edges) {
    const a = folderOf(from);
    const b = folderOf(to);
    if (a !== b) counts.set(`${a}\t${b}`, (counts.get(`${a}\t${b}`) ?? 0) + 1);
  }
  return [...counts]
    .map(([key, count]) => ({ from: key.split('\t')[0], to: key.split('\t')[1], count }))
    .sort((x, y) => (x.from + x.to).localeCompare(y.from + y.to));
}

const nodeId = (folder) => folder.replace(/[^a-z]/g, '_');

/** docs/architecture.md: the layers, the folder graph (Mermaid) and each folder's size. */
export function renderArchitecture(graph) {
  const byFolder = new Map(LAYERS.map((l) => [l.folder, { files: 0, lines: 0, largest: null }]));
  for (const n of graph.nodes) {
    const f = byFolder.get(n.folder);
    if (!f) continue;
    f.files += 1;
    f.lines += n.lines;
    if (!f.largest || n.lines > f.largest.lines) f.largest = n;
  }
  const lines = [
    '# The core of Runner Tray: folders and layers',
    '',
    'Made by `npm run arch` (scripts/arch.mjs) from the imports of `main/core`; `npm test` fails on any import that',
    'runs up a layer, sideways within one, or from one plane into the other (tests/unit/layering.test.ts).',
    'A control plane is one folder under `main/core/planes/`; what both planes share lives below them.',
    'Arrows carry the number of imports; the arrows into `base` (which every folder may use) are left out.',
    '',
    '```mermaid',
    'flowchart TD',
  ];
  for (const l of LAYERS) lines.push(`  ${nodeId(l.folder)}["${l.folder}"]`);
  // Every folder may use base/; those edges would hide the rest.
  for (const e of folderEdges(graph)) if (e.to !== 'base') lines.push(`  ${nodeId(e.from)} -->|${e.count}| ${nodeId(e.to)}`);
  lines.push('```', '', '| layer | folder | holds | files | lines | largest file |', '|---|---|---|---|---|---|');
  for (const l of LAYERS) {
    const f = byFolder.get(l.folder);
    const largest = f.largest ? `${f.largest.file.slice(CORE.length + 1)} (${f.largest.lines})` : '';
    lines.push(`| ${l.layer} | \`${l.folder}\` | ${l.holds} | ${f.files} | ${f.lines} | ${largest} |`);
  }
  const violations = archViolations(graph);
  lines.push('', `Imports between core files: ${graph.edges.length}; against the layers: ${violations.length}.`, '');
  return lines.join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const repoRoot = fileURLToPath(new URL('..', import.meta.url));
  const graph = coreGraph(repoRoot);
  writeFileSync(path.join(repoRoot, 'docs/architecture.md'), renderArchitecture(graph));
  const violations = archViolations(graph);
  for (const v of violations) console.error(`${v.from} → ${v.to}: ${v.rule}`);
  console.log(`docs/architecture.md: ${graph.nodes.length} files, ${graph.edges.length} imports, ${violations.length} against the layers`);
  process.exit(violations.length ? 1 : 0);
}
