import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { openView, pendingCode, startStack, type Stack } from './stack';

/**
 * axe on every view, light and dark, in the states people see: no serious or critical
 * violation anywhere (contrast, names, roles, labels, focusable scroll areas…).
 */
test.describe.configure({ mode: 'serial' });

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack({ args: ['--max-sessions', '2'] });
});

test.afterAll(async () => {
  await stack?.stop();
});

async function expectNoSeriousViolations(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${what}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious).toEqual([]);
}

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`${scheme} scheme`, () => {
    test.use({ colorScheme: scheme, viewport: { width: 900, height: 640 } });

    test('every view has no serious or critical accessibility violation', async ({ page }) => {
      if (scheme === 'light') {
        // Unpaired, waiting for approval (only once: approval is for good).
        await stack.host.open(page);
        await expect(page.getByTestId('user-code')).toBeVisible();
        await expectNoSeriousViolations(page, 'pairing (waiting)');
        await openView(page, 'dashboard');
        await expectNoSeriousViolations(page, 'dashboard (unpaired)');
        stack.emu.admin.approvePairing(await pendingCode(stack.emu));
        await openView(page, 'pairing');
        await expect(page.getByTestId('paired-card')).toBeVisible({ timeout: 15_000 });
        stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:done', seat: { id: 's1', name: 'Builder' } });
        stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep', seat: { id: 's2', name: 'Reviewer' } });
      } else {
        await stack.host.open(page, '#pairing');
        await expect(page.getByTestId('paired-card')).toBeVisible();
      }
      await expectNoSeriousViolations(page, 'pairing (paired)');

      await openView(page, 'dashboard');
      await expect(page.getByTestId('fig-sessions')).toContainText('/ 2');
      await expectNoSeriousViolations(page, 'dashboard');

      await page.getByTestId('pause-menu').click();
      await expect(page.getByRole('menu')).toBeVisible();
      await expectNoSeriousViolations(page, 'pause menu');
      await page.keyboard.press('Escape');

      await openView(page, 'turns');
      await expect(page.getByTestId('active-turn')).toHaveCount(1, { timeout: 10_000 });
      await expect(page.getByTestId('history-row').first()).toBeVisible({ timeout: 10_000 });
      await expectNoSeriousViolations(page, 'turns');
      await page.getByTestId('cancel-turn').click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await expectNoSeriousViolations(page, 'cancel dialog');
      await page.getByRole('dialog').getByRole('button', { name: 'Keep running' }).click();

      await openView(page, 'activity');
      await expectNoSeriousViolations(page, 'activity');

      await openView(page, 'settings');
      await page.getByTestId('setting-heartbeatMs').fill('1');
      await expect(page.getByTestId('error-heartbeatMs')).toBeVisible();
      await expectNoSeriousViolations(page, 'settings');
    });
  });
}
