import { defineConfig } from 'vitest/config';

// .ci/run sets RUNNER_TRAY_RETRIES=1: on a loaded CI machine a test that waits on a
// condition can still run out of its bound. A test that passes only on its retry is named
// at the end of `npm test` ("Passed only on a retry"), so it is seen and fixed, not hidden.
const retry = Number(process.env.RUNNER_TRAY_RETRIES ?? '0') || 0;

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    exclude: ['tests/e2e/**', 'tests/electron/**', 'node_modules/**'],
    environment: 'node',
    pool: 'forks',
    maxWorkers: 2,
    // A test ends when its last wait ends; these bounds only say how long a hung test takes
    // to fail. A harness wait can take DETECTION_BOUND_MS + 10 s on a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    retry,
  },
});
