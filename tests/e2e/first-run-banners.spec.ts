import { expect, test } from '@playwright/test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHeadlessHost, type RunningHost } from './headless-host';
import { openView, pairThroughEmulator, startStack, type Stack } from './stack';

/**
 * What a new operator meets when something is off at the first start: a settings file that
 * could not be used (set aside, defaults back) and a runtime that is not signed in.
 * RUNNER_TRAY_SCREENSHOTS=1 also writes docs/screenshots/banner-*.png.
 */
const SIGNED_OUT = fileURLToPath(new URL('../fixtures/signed-out-runtime.mjs', import.meta.url));
const shots = process.env.RUNNER_TRAY_SCREENSHOTS === '1';
test.setTimeout(90_000);

let emu: RunningEmulator | null = null;
let host: RunningHost | null = null;
let stack: Stack | null = null;
let dataDir: string | null = null;
test.afterEach(async () => {
  await host?.stop();
  await emu?.close();
  await stack?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  host = emu = stack = dataDir = null;
});

test('a corrupt settings file is named in a banner above every view, with what was reset', async ({ page }) => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-e2e-'));
  const file = path.join(dataDir, 'settings.json');
  writeFileSync(file, '{"schemaVersion": 2, "settings": {"runnerName": "half-writ');
  emu = await startEmulator({});
  host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store'], {}, { dataDir });
  await page.setViewportSize({ width: 900, height: 640 });
  await host.open(page);
  const banner = page.getByTestId('settings-banner');
  await expect(banner).toContainText(`Settings file ${file} could not be read`);
  await expect(banner).toContainText('every setting in it is back to its default, and a copy of the old file is at');
  await expect(page.getByTestId('view-pairing')).toBeVisible();
  if (shots) await page.screenshot({ path: 'docs/screenshots/banner-corrupt-settings.png' });
  await banner.getByRole('link', { name: 'Open Settings' }).click();
  await expect(page.getByTestId('settings-form')).toBeVisible();
  await banner.getByRole('button', { name: 'Dismiss' }).click();
  await expect(banner).toBeHidden();
});

test('a paired machine whose runtime is not signed in is amber and says why, not a green Idle', async ({ page }) => {
  stack = await startStack({ runtime: SIGNED_OUT });
  await page.setViewportSize({ width: 900, height: 640 });
  await pairThroughEmulator(page, stack);
  await openView(page, 'dashboard');
  await expect(page.getByTestId('status-line')).toHaveText('Idle · not claiming', { timeout: 20_000 });
  await expect(page.getByTestId('status-reason')).toContainText('Waiting: Claude Code: installed, not signed in');
  await expect(page.locator('.status-main .state-dot')).toHaveClass(/state-paused/);
  if (shots) await page.screenshot({ path: 'docs/screenshots/banner-runtime-not-ready.png' });
});
