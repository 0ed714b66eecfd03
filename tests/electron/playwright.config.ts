import { defineConfig } from '@playwright/test';

/**
 * The Electron smoke test: the built app (`npm run build` first), launched by
 * Playwright's _electron with its own data folder. It runs wherever the Electron binary
 * is installed and reports itself skipped, with the reason, where it is not.
 * On a Linux machine without a display, run it under xvfb-run.
 */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  globalSetup: './global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: { trace: 'retain-on-failure' },
});
