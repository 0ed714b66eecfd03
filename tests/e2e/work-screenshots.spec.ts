import { expect, test, type Browser, type Page } from '@playwright/test';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { handExecutor } from '../helpers/work-layer-executor';
import { startHeadlessHost, type RunningHost } from './headless-host';

/**
 * docs/screenshots/work-*.png: the Work view over the real host and the Sechroom emulator's
 * demo, light and dark, at the desktop window's 900×640. On demand only:
 * RUNNER_TRAY_SCREENSHOTS=1 npx playwright test --config tests/e2e/playwright.config.ts work-screenshots
 */
test.skip(!process.env.RUNNER_TRAY_SCREENSHOTS, 'screenshots are taken on demand (RUNNER_TRAY_SCREENSHOTS=1)');
test.setTimeout(120_000);

const OUT = 'docs/screenshots';
let emu: RunningEmulator;
let host: RunningHost;

test.afterAll(async () => {
  await host?.stop();
  await emu?.close();
});

async function open(browser: Browser, scheme: 'light' | 'dark'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 900, height: 640 }, colorScheme: scheme, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await host.open(page);
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  await page.getByRole('tab', { name: 'Work' }).click();
  await expect(page.getByTestId('work-brief').first()).toBeVisible();
  return page;
}

async function shoot(page: Page, name: string, scheme: string): Promise<void> {
  // Shot once the fonts are in and the page has painted twice (nothing is animating: animations are off).
  await page.evaluate(async () => {
    await document.fonts.ready;
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  });
  await page.screenshot({ path: `${OUT}/work-${name}-${scheme}.png`, caret: 'hide', animations: 'disabled' });
}

test('screenshots of the Work view', async ({ browser }) => {
  emu = await startEmulator({});
  const minted = emu.sechroom.mintToken();
  const demo = emu.sechroom.seedDemo();
  const executor = await handExecutor(emu, minted);
  await executor.complete(demo.tasks[0]!, 'Add a CSV writer for invoice exports', 'pass');
  await executor.take(demo.tasks[1]!);
  host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store'], {
    RUNNER_TRAY_SECHROOM_URL: emu.sechroomUrl,
    RUNNER_TRAY_SECHROOM_TENANT: minted.tenant,
    SECHROOM_TOKEN: minted.access_token,
  });
  for (const scheme of ['light', 'dark'] as const) {
    const page = await open(browser, scheme);
    await shoot(page, 'board', scheme);
    const card = page.locator(`[data-testid=work-brief][data-brief-id="${demo.brief_id}"]`);
    await card.getByTestId('brief-action-pause').click();
    await card.getByTestId('work-reason').fill('Waiting for the design review of the billing page.');
    await shoot(page, 'confirm', scheme);
    await page.context().close();
  }
});
