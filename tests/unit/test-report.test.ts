import { describe, expect, it } from 'vitest';
import { readPlaywright, readVitest, skipSummary, testLines } from '../../scripts/test-report.mjs';

// What `npm test` says at the end, and when .ci/run fails on a skip, comes from these
// reports; the fixtures have the shape vitest and Playwright write.

const root = '/repo';
const smokeReason = 'Electron binary not installed (node_modules/electron/path.txt is missing: the download never happened)';

const vitestReport = {
  numPassedTests: 3,
  numFailedTests: 0,
  numPendingTests: 2,
  numTodoTests: 0,
  testResults: [
    {
      name: '/repo/tests/real-cli/codex-cli.test.ts',
      assertionResults: [
        { status: 'skipped', fullName: 'real codex CLI (skipped: the codex CLI does not start (spawn ENOENT)) runs a turn', title: 'runs a turn' },
        { status: 'skipped', fullName: 'real codex CLI (skipped: the codex CLI does not start (spawn ENOENT)) resumes', title: 'resumes' },
      ],
    },
    { name: '/repo/tests/unit/layering.test.ts', assertionResults: [{ status: 'passed', fullName: 'layering holds', title: 'holds' }] },
  ],
};

const smokeReport = {
  stats: { expected: 0, skipped: 2, unexpected: 0, flaky: 0 },
  suites: [
    {
      title: 'smoke.spec.ts',
      file: 'smoke.spec.ts',
      specs: [
        { title: 'shows the window', file: 'smoke.spec.ts', tests: [{ status: 'skipped', annotations: [{ type: 'skip', description: smokeReason }] }] },
        { title: 'exposes the contract', file: 'smoke.spec.ts', tests: [{ status: 'skipped', annotations: [{ type: 'skip', description: smokeReason }] }] },
      ],
    },
  ],
};

const e2eReport = {
  stats: { expected: 5, skipped: 1, unexpected: 1, flaky: 1 },
  suites: [
    {
      title: 'screenshots.spec.ts',
      file: 'screenshots.spec.ts',
      specs: [
        {
          title: 'every view',
          file: 'screenshots.spec.ts',
          tests: [{ status: 'skipped', annotations: [{ type: 'skip', description: 'screenshots are taken on demand' }] }],
        },
      ],
      suites: [{ title: 'nested', specs: [{ title: 'runs', file: 'screenshots.spec.ts', tests: [{ status: 'expected', annotations: [] }] }] }],
    },
  ],
};

describe('reading the test reports', () => {
  it('counts vitest results and takes each skip reason from the suite title', () => {
    const read = readVitest(vitestReport, root);
    expect([read.passed, read.failed, read.skipped]).toEqual([3, 0, 2]);
    expect(read.skips).toEqual([
      { file: 'tests/real-cli/codex-cli.test.ts', reason: 'the codex CLI does not start (spawn ENOENT)' },
      { file: 'tests/real-cli/codex-cli.test.ts', reason: 'the codex CLI does not start (spawn ENOENT)' },
    ]);
  });

  it('counts Playwright results, flaky as passed, and knows when nothing ran', () => {
    const smoke = readPlaywright(smokeReport, 'tests/electron');
    expect([smoke.passed, smoke.failed, smoke.skipped, smoke.ran]).toEqual([0, 0, 2, 0]);
    expect(smoke.skips[0]).toEqual({ file: 'tests/electron/smoke.spec.ts', reason: smokeReason });
    const e2e = readPlaywright(e2eReport, 'tests/e2e');
    expect([e2e.passed, e2e.failed, e2e.skipped, e2e.ran]).toEqual([6, 1, 1, 7]);
    expect(e2e.skips).toEqual([{ file: 'tests/e2e/screenshots.spec.ts', reason: 'screenshots are taken on demand' }]);
  });

  it('a missing report counts nothing', () => {
    expect(readVitest(null, root)).toEqual({ passed: 0, failed: 0, skipped: 0, skips: [], failures: [], flaky: [] });
    expect(readPlaywright(null, 'tests/e2e')).toEqual({ passed: 0, failed: 0, skipped: 0, ran: 0, skips: [], failures: [], flaky: [] });
  });
});

describe('naming what failed, and what passed only on a retry', () => {
  it('vitest: a failed test with its first error line; a pass with errors on record is flaky', () => {
    const read = readVitest(
      {
        numPassedTests: 2,
        numFailedTests: 1,
        testResults: [
          {
            name: '/repo/tests/integration/restart.test.ts',
            assertionResults: [
              { status: 'failed', fullName: 'restart comes back', failureMessages: ['\nError: Test timed out in 20000ms.\n    at x (y.ts:1:1)'] },
              { status: 'passed', fullName: 'restart keeps state', failureMessages: ['AssertionError: expected 1 to be 2\n  at z'] },
              { status: 'passed', fullName: 'restart is quick', failureMessages: [] },
            ],
          },
        ],
      },
      root,
    );
    expect(read.failures).toEqual([{ file: 'tests/integration/restart.test.ts', name: 'restart comes back', error: 'Error: Test timed out in 20000ms.' }]);
    expect(read.flaky).toEqual([{ file: 'tests/integration/restart.test.ts', name: 'restart keeps state', error: 'AssertionError: expected 1 to be 2' }]);
    expect(testLines(read.failures)).toEqual(['tests/integration/restart.test.ts › restart comes back: Error: Test timed out in 20000ms.']);
  });

  it('Playwright: unexpected is a failure and flaky is named, each with its spec line and error', () => {
    const read = readPlaywright(
      {
        stats: { expected: 0, skipped: 0, unexpected: 1, flaky: 1 },
        suites: [
          {
            file: 'first-screen.spec.ts',
            specs: [
              {
                title: 'reconnects',
                file: 'first-screen.spec.ts',
                line: 103,
                tests: [
                  {
                    status: 'unexpected',
                    results: [{ status: 'failed', error: { message: 'Error: expect(locator).toContainText(expected) failed\n\nLocator: x' } }],
                  },
                ],
              },
              {
                title: 'shows live data',
                file: 'first-screen.spec.ts',
                line: 16,
                tests: [{ status: 'flaky', results: [{ status: 'timedOut', error: { message: 'Test timeout of 30000ms exceeded.' } }, { status: 'passed' }] }],
              },
            ],
          },
        ],
      },
      'tests/e2e',
    );
    expect(testLines(read.failures)).toEqual(['tests/e2e/first-screen.spec.ts › reconnects (line 103): Error: expect(locator).toContainText(expected) failed']);
    expect(testLines(read.flaky)).toEqual(['tests/e2e/first-screen.spec.ts › shows live data (line 16): Test timeout of 30000ms exceeded.']);
  });
});

describe('which skips are allowed', () => {
  const skips = [
    ...readVitest(vitestReport, root).skips,
    ...readPlaywright(smokeReport, 'tests/electron').skips,
    ...readPlaywright(e2eReport, 'tests/e2e').skips,
  ];

  it('lists every skip once per file and reason, saying which are expected', () => {
    expect(skipSummary(skips, false).lines).toEqual([
      'tests/real-cli/codex-cli.test.ts (2 tests): the codex CLI does not start (spawn ENOENT) [needs something this machine lacks; CI has it]',
      `tests/electron/smoke.spec.ts (2 tests): ${smokeReason} [expected: no Electron binary]`,
      'tests/e2e/screenshots.spec.ts (1 test): screenshots are taken on demand [expected: on demand]',
    ]);
  });

  it('only the smoke test and the screenshot specs may skip under strict skips', () => {
    const strict = skipSummary(skips, true);
    expect(strict.unexpected.map((g) => g.file)).toEqual(['tests/real-cli/codex-cli.test.ts']);
    expect(strict.lines[0]).toContain('[NOT ALLOWED here]');
    expect(skipSummary(skips.slice(2), true).unexpected).toEqual([]);
  });
});
