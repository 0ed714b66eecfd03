// `npm test`: every check, in the order that fails fastest, then a closing block with each
// step's outcome, every skipped test with its reason, and the totals
// ("Total: N passed, N failed, N skipped"). Exits non-zero if any step failed.
//
//   1. type-check each environment (shared, node, electron, renderer, tests)
//   2. lint: oxlint, type-aware, with the layering and IPC-door rules (.oxlintrc.json)
//   3. format check: Prettier (.prettierrc.json)
//   4. dead code: knip (unused files, exports and dependencies; knip.jsonc)
//   5. vitest: shared, core, emulator, shell, integration and real-CLI tests
//   6. Electronegativity security scan of the Electron-facing code
//   7. build (renderer + Electron bundles)
//   8. Playwright in Debian's Chromium against the headless host and the emulator
//   9. the Electron smoke test (skips, saying why, where no Electron binary exists)
//
// Tests that need something from the machine skip with the reason where it is missing.
// RUNNER_TRAY_STRICT_SKIPS=1 (set by .ci/run, which installs all of it) fails the run when
// anything skips but the Electron smoke test and the on-demand screenshot specs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readPlaywright, readVitest, skipSummary, testLines } from './test-report.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = path.join(root, '.tmp', 'test-results');
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const strictSkips = process.env.RUNNER_TRAY_STRICT_SKIPS === '1';

const totals = { passed: 0, failed: 0, skipped: 0 };
/** @type {{ name: string; outcome: string; seconds: number }[]} */
const outcomes = [];
const failedSteps = [];
/** @type {{ file: string; reason: string }[]} */
const skips = [];
/** @type {{ file: string; name: string; error: string }[]} */
const failures = [];
/** @type {{ file: string; name: string; error: string }[]} */
const flaky = [];

/** Runs one step; `after` reads its report and may name a passing outcome other than "ok". */
function step(name, command, args, env = {}, after = () => null) {
  const started = Date.now();
  process.stdout.write(`\n── ${name} ──\n`);
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const ok = r.status === 0;
  const seconds = (Date.now() - started) / 1000;
  const passed = after();
  const outcome = ok ? (passed ?? 'ok') : `FAILED (exit ${r.status ?? r.signal})`;
  process.stdout.write(`── ${name}: ${outcome} in ${seconds.toFixed(1)} s\n`);
  outcomes.push({ name, outcome, seconds });
  if (!ok) failedSteps.push(name);
  return ok;
}

function notRun(name, why) {
  outcomes.push({ name, outcome: `not run (${why})`, seconds: 0 });
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function count(read) {
  totals.passed += read.passed;
  totals.failed += read.failed;
  totals.skipped += read.skipped;
  skips.push(...read.skips);
  failures.push(...read.failures);
  flaky.push(...read.flaky);
  return read;
}

const node = process.execPath;
step('type-check', node, ['scripts/typecheck.mjs']);
step('lint', bin('oxlint'), ['--type-aware']);
step('format check', bin('prettier'), ['--check', '--log-level', 'warn', '.']);
step('dead code (knip)', bin('knip'), []);

const vitestJson = path.join(tmp, 'vitest.json');
step('vitest', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`], {}, () => {
  count(readVitest(readJson(vitestJson), root));
  return null;
});

step('security scan', node, ['scripts/electronegativity.mjs']);

if (step('build', 'npm', ['run', '--silent', 'build'])) {
  const e2eJson = path.join(tmp, 'e2e.json');
  step(
    'browser tests (Chromium)',
    bin('playwright'),
    ['test', '--config', 'tests/e2e/playwright.config.ts', '--reporter=list,json'],
    { PLAYWRIGHT_JSON_OUTPUT_NAME: e2eJson },
    () => {
      count(readPlaywright(readJson(e2eJson), 'tests/e2e'));
      return null;
    },
  );

  const electronJson = path.join(tmp, 'electron.json');
  step(
    'Electron smoke test',
    bin('playwright'),
    ['test', '--config', 'tests/electron/playwright.config.ts', '--reporter=list,json'],
    { PLAYWRIGHT_JSON_OUTPUT_NAME: electronJson },
    () => {
      const read = count(readPlaywright(readJson(electronJson), 'tests/electron'));
      // It "passed" by skipping every test: say so, never "ok".
      return read.ran === 0 && read.skipped > 0 ? 'skipped (no Electron binary)' : null;
    },
  );
} else {
  notRun('browser tests (Chromium)', 'the build failed');
  notRun('Electron smoke test', 'the build failed');
}

process.stdout.write('\n── Summary ──\n');
const width = Math.max(...outcomes.map((o) => o.name.length));
for (const o of outcomes) process.stdout.write(`  ${o.name.padEnd(width)}  ${o.outcome}${o.seconds ? `  (${o.seconds.toFixed(1)} s)` : ''}\n`);

const { lines, unexpected } = skipSummary(skips, strictSkips);
if (lines.length) {
  process.stdout.write(`\nSkipped (${skips.length}):\n`);
  for (const line of lines) process.stdout.write(`  ${line}\n`);
}
if (strictSkips && unexpected.length) {
  failedSteps.push('unexpected skips');
  process.stdout.write(`\nRUNNER_TRAY_STRICT_SKIPS=1: ${unexpected.length} skipped group(s) above are not allowed here; install what they need.\n`);
}

// Named here, at the end, so the last lines of a CI log say which tests and why.
if (flaky.length) {
  process.stdout.write(`\nPassed only on a retry (${flaky.length}); each is a defect to find, not a pass to trust:\n`);
  for (const line of testLines(flaky)) process.stdout.write(`  ${line}\n`);
}
if (failures.length) {
  process.stdout.write(`\nFailed tests (${failures.length}):\n`);
  for (const line of testLines(failures)) process.stdout.write(`  ${line}\n`);
}
if (failedSteps.length) process.stdout.write(`\nFailed steps: ${failedSteps.join(', ')}\n`);
process.stdout.write(`\nTotal: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failedSteps.length ? 1 : 0);
