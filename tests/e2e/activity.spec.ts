import { expect, test } from '@playwright/test';
import { startHeadlessHost, type RunningHost } from './headless-host';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

let host: RunningHost;

test.beforeAll(async () => {
  host = await startHeadlessHost();
});

test.afterAll(async () => {
  await host.stop();
});

test('the activity log filters by level and text, and copies what it shows', async ({ page }) => {
  await host.open(page, '#activity');
  const list = page.getByTestId('log-list');
  await expect(list).toContainText('host started');
  const all = await list.locator('li').count();
  expect(all).toBeGreaterThan(1);

  await page.getByTestId('log-filter').fill('host started');
  await expect(list.locator('li')).toHaveCount(1);
  await page.getByTestId('log-copy').click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied.split('\n')).toHaveLength(1);
  expect(copied).toMatch(/^\d{4}-\d\d-\d\dT\S+ INFO .*host started/);

  await page.getByTestId('log-filter').fill('');
  await page.getByTestId('log-level').selectOption('error');
  await expect(page.getByTestId('log-empty')).toHaveText('No line matches. Lower the level or clear the filter.');
  await page.getByTestId('log-level').selectOption('debug');
  expect(await list.locator('li').count()).toBeGreaterThanOrEqual(all);

  // "Open logs folder" is for the desktop app; the headless page has no desktop to open it on.
  await expect(page.getByTestId('open-logs')).toHaveCount(0);
});
