import { expect, test } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const ADDRESS = /— open (http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/;

/** Two CPU-bound processes per core, for as long as the test runs: the machine a new user had. */
function busyMachine(): ChildProcess[] {
  return Array.from({ length: 2 * os.availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

const exitOf = (child: ChildProcess) =>
  new Promise<number | string | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode ?? child.signalCode);
    else child.once('exit', (code, signal) => resolve(code ?? signal));
  });

test('npm run demo reaches a usable page while the machine is busy', async ({ page }) => {
  test.setTimeout(300_000);
  const demoDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-demo-'));
  const burners = busyMachine();
  // Free ports for the emulator and the host: other runs on this machine use the defaults.
  const demo = spawn(process.execPath, ['scripts/demo.mjs', '--headless', '--fake-runtime', '--port', '0', '--app-port', '0', '--demo-dir', demoDir], {
    cwd: repoRoot,
    // No browser is opened from a test, and quitting does not wait for a turn.
    env: { ...process.env, DISPLAY: '', WAYLAND_DISPLAY: '', RUNNER_TRAY_QUIT_DRAIN_MS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const collect = (chunk: Buffer) => output.push(chunk.toString());
  demo.stdout!.on('data', collect);
  demo.stderr!.on('data', collect);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const text = output.join('');
        const address = ADDRESS.exec(text)?.[1];
        if (address && text.includes('Demo ready.')) resolve(address);
      };
      demo.stdout!.on('data', check);
      void exitOf(demo).then((code) => reject(new Error(`the demo exited (${code}) before it was ready:\n${output.join('')}`)));
    });
    await page.goto(url);
    await expect(page.getByTestId('view-pairing')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('user-code')).toHaveText(/^[A-Z]{4}-[A-Z]{4}$/, { timeout: 60_000 });
    expect(output.join('')).not.toContain('ECONNREFUSED');
  } finally {
    for (const burner of burners) burner.kill('SIGKILL');
    demo.kill('SIGINT');
    expect(await exitOf(demo)).toBe(0);
    rmSync(demoDir, { recursive: true, force: true });
  }
});
