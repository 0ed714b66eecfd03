// Security scan of the Electron-facing source with Doyensec's Electronegativity
// (`npm run test:security`). Fails on any finding, and also on any file the scanner
// could not parse: a file it skipped is a file nobody checked.
//
// What it scans: main/electron, preload and renderer, staged together in one temporary
// folder so that the global checks (CSP, navigation limits, permission handler) see the
// whole app at once, told our Electron version (read from node_modules/electron).
//
// Offline: AvailableSecurityFixesGlobalCheck (which asks the network for Electron
// releases) is excluded, and the scanner's start-up download of translations is
// answered locally with "not found", so it uses its bundled English text.
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import Module, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SCANNED = ['main/electron', 'preload', 'renderer'];
const EXCLUDED_CHECKS = ['AvailableSecurityFixesGlobalCheck'];
const started = Date.now();

const require = createRequire(import.meta.url);
const scannerEntry = require.resolve('@doyensec/electronegativity');

// The scanner fetches updated translations with `got` before every run; pre-load a `got`
// that answers 404 so no request leaves the machine and no time is spent timing out.
const requireFromScanner = createRequire(scannerEntry);
const gotPath = requireFromScanner.resolve('got');
require.cache[gotPath] = {
  id: gotPath,
  filename: gotPath,
  loaded: true,
  exports: () => Promise.resolve({ statusCode: 404, body: '' }),
};
// The scanner's TypeScript parser (@typescript-eslint/typescript-estree 4, hoisted to the
// top of node_modules with its helper tsutils) needs the TypeScript 4 API, but from
// there `typescript` resolves to the project's TypeScript 7, which has no JS compiler API
// and crashes it. Point those two packages at the TypeScript 4.2 the scanner ships.
const scannerTypeScript = requireFromScanner.resolve('typescript');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (request === 'typescript' && /[\\/]node_modules[\\/](@typescript-eslint|tsutils)[\\/]/.test(parent?.filename ?? '')) {
    return scannerTypeScript;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
// Its progress bar and logger write to the console; keep the output to our summary.
const winston = requireFromScanner('winston');
winston.remove?.(winston.transports.Console);

const run = requireFromScanner('./runner.js');
const csp = requireFromScanner('@doyensec/csp-evaluator');

/**
 * Findings that were reviewed and accepted, each with its reason. Each is matched
 * narrowly, on what was reviewed, so any change to it fails the scan again.
 */
const REVIEWED = [
  {
    id: 'CSP_GLOBAL_CHECK',
    why:
      "script-src 'self' is flagged because a site may serve JSONP or user uploads from its own origin. Ours is " +
      'app://renderer (in Electron) or the loopback host (headless), and both serve only the built renderer.',
    // Accepted only while 'self' in script-src is the evaluator's one and only remark.
    accepts: (issue) => {
      if (typeof issue.sample !== 'string') return false;
      const findings = new csp.CspEvaluator(new csp.CspParser(issue.sample).csp, csp.Version.CSP3).evaluate();
      return findings.length > 0 && findings.every((f) => f.directive === 'script-src' && f.value === "'self'" && f.severity === csp.severities.MEDIUM_MAYBE);
    },
  },
];

const electronVersion = JSON.parse(await readFile(path.join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
const stage = await mkdtemp(path.join(os.tmpdir(), 'runner-tray-scan-'));
try {
  for (const dir of SCANNED) {
    await cp(path.join(root, dir), path.join(stage, dir), {
      recursive: true,
      filter: (source) => !source.includes(`${path.sep}node_modules`),
    });
  }

  const result = await run({
    input: stage,
    excludeFromScan: EXCLUDED_CHECKS,
    electronVersionOverride: electronVersion,
    isRelative: true,
    // Sources are TypeScript with JSX; the parser takes them as they are.
    parserPlugins: [],
  });

  const accepted = [];
  const open = result.issues.filter((issue) => {
    const review = REVIEWED.find((r) => r.id === issue.id && r.accepts(issue));
    if (review) accepted.push({ issue, why: review.why });
    return !review;
  });
  const issues = open.map((issue) => ({
    id: issue.id,
    file: path.relative(stage, path.resolve(stage, issue.file)) || issue.file,
    line: issue.location?.line ?? 0,
    column: issue.location?.column ?? 0,
    severity: issue.severity?.name ?? '?',
    confidence: issue.confidence?.name ?? '?',
    review: Boolean(issue.manualReview),
    description: issue.description,
    sample: issue.sample,
  }));
  const unparsed = result.errors.filter((e) => !e.tolerable);
  const scannedFiles = await countFiles(stage);

  console.log(
    `electronegativity ${requireFromScanner('../package.json').version}: ${result.globalChecks} global + ${result.atomicChecks} atomic checks ` +
      `on ${scannedFiles} files of ${SCANNED.join(', ')} (Electron ${electronVersion}; excluded: ${EXCLUDED_CHECKS.join(', ')}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  for (const { issue, why } of accepted) {
    console.log(`  ~ ${issue.id} in ${path.relative(stage, path.resolve(stage, issue.file))}: accepted after review — ${why}`);
  }
  for (const issue of issues) {
    console.log(`  ✗ ${issue.id} [${issue.severity}/${issue.confidence}${issue.review ? ', review' : ''}] ${issue.file}:${issue.line}:${issue.column}`);
    console.log(`      ${issue.description}`);
    if (issue.sample) console.log(`      > ${String(issue.sample).trim().slice(0, 160)}`);
  }
  for (const error of unparsed) console.log(`  ✗ could not parse ${path.relative(stage, error.file)}: ${error.message}`);

  if (issues.length || unparsed.length) {
    console.log(`electronegativity: FAILED — ${issues.length} finding(s), ${unparsed.length} unparsed file(s)`);
    process.exitCode = 1;
  } else {
    console.log(`electronegativity: no findings${accepted.length ? ` (${accepted.length} reviewed and accepted, above)` : ''}`);
  }
} finally {
  await rm(stage, { recursive: true, force: true });
}

async function countFiles(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && /\.(tsx?|jsx?|html?)$/.test(e.name)).length;
}
