import { expect, test, type Browser, type Page } from '@playwright/test';
import { openDetail, operatorId, pairHost, requestId, row, startRequestsStack, type RequestsStack } from './requests-helpers';

/**
 * docs/screenshots/requests-*.png: the Requests view over the real host and emulator, light
 * and dark, at the desktop window's 900×640. On demand only:
 * RUNNER_TRAY_SCREENSHOTS=1 npx playwright test --config tests/e2e/playwright.config.ts requests-screenshots
 */
test.skip(!process.env.RUNNER_TRAY_SCREENSHOTS, 'screenshots are taken on demand (RUNNER_TRAY_SCREENSHOTS=1)');
test.setTimeout(180_000);

const OUT = 'docs/screenshots';
let stack: RequestsStack;

test.afterAll(async () => {
  await stack?.stop();
});

async function open(browser: Browser, scheme: 'light' | 'dark'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 900, height: 640 }, colorScheme: scheme, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await stack.host.open(page);
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  await page.getByRole('tab', { name: 'Requests' }).click();
  await expect(page.getByTestId('requests-view')).toBeVisible();
  return page;
}

async function shoot(page: Page, name: string, scheme: string): Promise<void> {
  // Shot once the fonts are in and the page has painted twice (nothing is animating: animations are off).
  await page.evaluate(async () => {
    await document.fonts.ready;
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  });
  // The strict CSP refuses injected styles; the caret is hidden by the screenshot itself.
  await page.screenshot({ path: `${OUT}/requests-${name}-${scheme}.png`, caret: 'hide', animations: 'disabled' });
}

test('screenshots of the Requests view', async ({ browser }) => {
  stack = await startRequestsStack();
  await pairHost(stack);
  const id = requestId(stack.emu, 'in_progress');

  // Sign-in, waiting for approval (light and dark), then approve the second code.
  for (const scheme of ['light', 'dark'] as const) {
    const page = await open(browser, scheme);
    if (await page.getByTestId('sign-in-cancel').isVisible()) await page.getByTestId('sign-in-cancel').click();
    await page.getByTestId('sign-in-start').click();
    await expect(page.getByTestId('sign-in-code')).toBeVisible();
    await shoot(page, 'sign-in', scheme);
    if (scheme === 'dark') {
      const code = (await page.getByTestId('sign-in-code').textContent())!.trim();
      stack.emu.admin.decideOAuthDeviceCode(code, operatorId(stack.emu, 'Ada Admin'));
      await expect(page.getByTestId('operator-bar')).toBeVisible();
    }
    await page.context().close();
  }

  // This runner works on the in-progress request.
  stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:600000', build_request_id: id, seat: { id: 'seat-1', name: 'Builder' } });
  for (const scheme of ['light', 'dark'] as const) {
    const page = await open(browser, scheme);
    await expect(row(page, id).getByTestId('running-here')).toBeVisible({ timeout: 15_000 });
    await shoot(page, 'board', scheme);
    await openDetail(page, id);
    await expect(page.getByTestId('request-turn-active')).toBeVisible();
    await shoot(page, 'detail', scheme);
    await page.getByTestId('request-detail').evaluate((el) => el.closest('.content')?.scrollTo(0, 380));
    await shoot(page, 'detail-history', scheme);
    await page.context().close();
  }

  // Pause through a confirmation handoff.
  stack.emu.admin.setConfirmationMode(true);
  for (const scheme of ['light', 'dark'] as const) {
    const page = await open(browser, scheme);
    await openDetail(page, id);
    await page.getByTestId('action-pause').click();
    await page.getByTestId('reason').fill('Release freeze until Monday');
    await shoot(page, 'confirm', scheme);
    await page.getByTestId('confirm-action').click();
    await expect(page.getByTestId('handoff')).toBeVisible();
    await shoot(page, 'handoff', scheme);
    await page.getByRole('button', { name: 'Stop following' }).click();
    await page.context().close();
  }
});
