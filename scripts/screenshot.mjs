// Regenerates docs/screenshots/: every view of the window, light and dark, at 900×640,
// with real data from the control plane emulator (tests/e2e/screenshots.spec.ts, work-screenshots.spec.ts).
// Usage: node scripts/screenshot.mjs   (builds the renderer first)
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const run = (args, env = {}) => {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
run([path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'vite.renderer.config.ts', '--logLevel', 'warn']);
run(
  [
    path.join(root, 'node_modules/@playwright/test/cli.js'),
    'test',
    '--config',
    'tests/e2e/playwright.config.ts',
    'tests/e2e/screenshots.spec.ts',
    'tests/e2e/work-screenshots.spec.ts',
  ],
  {
    RUNNER_TRAY_SCREENSHOTS: '1',
  },
);
console.log('docs/screenshots/ updated: look at each PNG before committing.');
