// `npm test`: every check, in the order that fails fastest, then one closing line with
// the totals ("Total: N passed, N failed, N skipped"). Exits non-zero if any step failed.
//
//   1. type-check each environment (shared, node, electron, renderer, tests)
//   2. vitest: shared, core, emulator, shell, integration and real-CLI tests
//   3. Electronegativity security scan of the Electron-facing code
//   4. build (renderer + Electron bundles)
//   5. Playwright in Debian's Chromium against the headless host and the emulator
//   6. the Electron smoke test (skips, saying why, where no Electron binary exists)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const tmp = path.join(root, '.tmp', 'test-results');
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
const bin = (name) => path.join(root, 'node_modules', '.bin', name);

const totals = { passed: 0, failed: 0, skipped: 0 };
const failedSteps = [];

function step(name, command, args, env = {}) {
  const started = Date.now();
  process.stdout.write(`\n── ${name} ──\n`);
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const ok = r.status === 0;
  process.stdout.write(`── ${name}: ${ok ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  if (!ok) failedSteps.push(name);
  return ok;
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function countVitest(file) {
  const report = readJson(file);
  if (!report) return;
  totals.passed += report.numPassedTests ?? 0;
  totals.failed += report.numFailedTests ?? 0;
  totals.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}

function countPlaywright(file) {
  const report = readJson(file);
  if (!report?.stats) return;
  totals.passed += (report.stats.expected ?? 0) + (report.stats.flaky ?? 0);
  totals.failed += report.stats.unexpected ?? 0;
  totals.skipped += report.stats.skipped ?? 0;
}

const node = process.execPath;
step('type-check', node, ['scripts/typecheck.mjs']);

const vitestJson = path.join(tmp, 'vitest.json');
step('vitest', bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
countVitest(vitestJson);

step('security scan', node, ['scripts/electronegativity.mjs']);

if (step('build', 'npm', ['run', '--silent', 'build'])) {
  const e2eJson = path.join(tmp, 'e2e.json');
  step('browser tests (Chromium)', bin('playwright'), ['test', '--config', 'tests/e2e/playwright.config.ts', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: e2eJson });
  countPlaywright(e2eJson);

  const electronJson = path.join(tmp, 'electron.json');
  step('Electron smoke test', bin('playwright'), ['test', '--config', 'tests/electron/playwright.config.ts', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: electronJson });
  countPlaywright(electronJson);
}

if (failedSteps.length) process.stdout.write(`\nFailed steps: ${failedSteps.join(', ')}\n`);
process.stdout.write(`\nTotal: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failedSteps.length ? 1 : 0);
