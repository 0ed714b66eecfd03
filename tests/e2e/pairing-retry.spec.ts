import { expect, test } from '@playwright/test';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHeadlessHost, type RunningHost } from './headless-host';

/**
 * A first start while the control plane cannot take a pairing: the window says why, when
 * the next try is, and offers Retry now, instead of a dead "Not paired".
 * RUNNER_TRAY_SCREENSHOTS=1 also writes docs/screenshots/banner-pairing-retrying.png.
 */
const shots = process.env.RUNNER_TRAY_SCREENSHOTS === '1';
test.setTimeout(90_000);

let emu: RunningEmulator | null = null;
let host: RunningHost | null = null;
test.afterEach(async () => {
  await host?.stop();
  await emu?.close();
  host = emu = null;
});

test('a pairing the control plane cannot take says retrying with the error and a countdown; Retry now gets the code', async ({ page }) => {
  emu = await startEmulator({ config: { pairingIntervalSec: 1 } });
  emu.admin.addFault({ route: '/api/runner/pairing/start', error: { rate: 1, status: 503 } });
  // An unpaired headless host starts pairing by itself.
  host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store', '--name', 'e2e-retry']);
  await page.setViewportSize({ width: 900, height: 640 });
  await host.open(page);
  const retrying = page.getByTestId('pairing-retrying');
  await expect(retrying).toBeVisible();
  await expect(page.getByTestId('pairing-retrying-error')).toContainText('503');
  await expect(page.getByTestId('pairing-retrying-countdown')).toHaveText(/^Trying again (in \d+ s|now) \(attempt \d+\)/);
  await expect(page.getByTestId('status-line')).toHaveText('Pairing…');
  if (shots) await page.screenshot({ path: 'docs/screenshots/banner-pairing-retrying.png' });

  emu.admin.clearFaults();
  await page.getByTestId('pairing-retry-now').click();
  // A busy machine may take a while to answer; the wait ends as soon as the code shows.
  await expect(page.getByTestId('user-code')).toHaveText(/^[A-Z]{4}-[A-Z]{4}$/, { timeout: 20_000 });
  await expect(retrying).toBeHidden();
  const code = (await page.getByTestId('user-code').textContent())!;
  emu.admin.approvePairing(code);
  await expect(page.getByTestId('pairing-approved')).toBeVisible({ timeout: 20_000 });
});
