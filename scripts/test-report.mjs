// Reads the vitest and Playwright JSON reports for `npm test` (scripts/test.mjs): the
// counts, every skipped test with its reason, and which skips are allowed. Pure, so
// tests/unit/test-report.test.ts checks it on reports of the real shape.
import path from 'node:path';

/** Skips expected everywhere: no Electron binary can be downloaded on CI, and screenshots are taken on demand. */
export const EXPECTED_SKIPS = new Map([
  ['tests/electron/smoke.spec.ts', 'no Electron binary'],
  ['tests/e2e/screenshots.spec.ts', 'on demand'],
  ['tests/e2e/requests-screenshots.spec.ts', 'on demand'],
  ['tests/e2e/usage.spec.ts', 'on demand'],
  ['tests/e2e/work-screenshots.spec.ts', 'on demand'],
]);

const posix = (file) => file.split(path.sep).join('/');

/** A skipped suite says why in its title: "… (skipped: reason)" (tests/helpers/environment.ts). */
export function vitestSkipReason(fullName) {
  const match = /\(skipped: (.+?)\)(?: |$)/.exec(fullName);
  return match ? match[1] : `skipped: ${fullName}`;
}

/** The first line of an error worth reading, trimmed to one screen line. */
export function firstLine(message) {
  const line = String(message ?? '')
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.length > 0);
  return (line ?? '').slice(0, 200);
}

/**
 * Counts, skips, failures and flaky tests (passed only on a retry) of a vitest JSON report
 * (null when there is none).
 */
export function readVitest(report, root) {
  const out = { passed: 0, failed: 0, skipped: 0, skips: [], failures: [], flaky: [] };
  if (!report) return out;
  out.passed = report.numPassedTests ?? 0;
  out.failed = report.numFailedTests ?? 0;
  out.skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const result of report.testResults ?? []) {
    for (const test of result.assertionResults ?? []) {
      const file = posix(path.relative(root, result.name));
      const name = test.fullName ?? test.title ?? '';
      const messages = test.failureMessages ?? [];
      if (['pending', 'skipped', 'todo'].includes(test.status)) out.skips.push({ file, reason: vitestSkipReason(name) });
      else if (test.status === 'failed') out.failures.push({ file, name, error: firstLine(messages[0]) });
      // A test that passed with errors on record failed first and passed on a retry.
      else if (test.status === 'passed' && messages.length > 0) out.flaky.push({ file, name, error: firstLine(messages[0]) });
    }
  }
  return out;
}

/** Counts and skips of a Playwright JSON report; `configDir` is the config's testDir, relative to the repository. */
export function readPlaywright(report, configDir) {
  const out = { passed: 0, failed: 0, skipped: 0, ran: 0, skips: [], failures: [], flaky: [] };
  if (!report?.stats) return out;
  out.passed = (report.stats.expected ?? 0) + (report.stats.flaky ?? 0);
  out.failed = report.stats.unexpected ?? 0;
  out.skipped = report.stats.skipped ?? 0;
  out.ran = out.passed + out.failed;
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const file = posix(path.posix.join(configDir, spec.file));
        const name = spec.line ? `${spec.title} (line ${spec.line})` : spec.title;
        const error = firstLine((test.results ?? []).find((r) => r.error)?.error?.message);
        if (test.status === 'unexpected') out.failures.push({ file, name, error });
        else if (test.status === 'flaky') out.flaky.push({ file, name, error });
        if (test.status !== 'skipped') continue;
        const annotation = (test.annotations ?? []).find((a) => a.type === 'skip');
        out.skips.push({ file, reason: annotation?.description || 'skipped' });
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
  return out;
}

/**
 * The skip list for the closing block, grouped by file and reason, and the groups that are
 * not allowed under RUNNER_TRAY_STRICT_SKIPS=1 (anything but EXPECTED_SKIPS).
 */
export function skipSummary(skips, strict) {
  const grouped = new Map();
  for (const s of skips) {
    const key = `${s.file}\0${s.reason}`;
    grouped.set(key, { ...s, count: (grouped.get(key)?.count ?? 0) + 1 });
  }
  const groups = [...grouped.values()];
  const lines = groups.map((g) => {
    const expected = EXPECTED_SKIPS.get(g.file);
    const note = expected ? `expected: ${expected}` : strict ? 'NOT ALLOWED here' : 'needs something this machine lacks; CI has it';
    return `${g.file} (${g.count} ${g.count === 1 ? 'test' : 'tests'}): ${g.reason} [${note}]`;
  });
  return { lines, unexpected: groups.filter((g) => !EXPECTED_SKIPS.has(g.file)) };
}

/** One line per failed or flaky test for the closing block: "file › name: first error line". */
export function testLines(tests) {
  return tests.map((t) => `${t.file} › ${t.name}${t.error ? `: ${t.error}` : ''}`);
}
