import { defineConfig } from '@playwright/test';

// .ci/run sets RUNNER_TRAY_RETRIES=1 (see vitest.config.ts); a retried pass is reported as
// flaky and named at the end of `npm test`.
const retries = Number(process.env.RUNNER_TRAY_RETRIES ?? '0') || 0;

/**
 * Browser tests: Debian's Chromium (never a downloaded browser) against the real
 * headless host, and later the emulator, over loopback.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  fullyParallel: false,
  workers: 1,
  retries,
  timeout: 30_000,
  // Every expect waits on a condition; 10 s bounds it on a loaded 2-core machine, where
  // Chromium and the host share the cores with the rest of the run.
  expect: { timeout: 10_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    // Times follow the locale; a fixed one (24-hour clock) keeps expected texts stable.
    locale: 'en-GB',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    trace: 'off',
  },
});
