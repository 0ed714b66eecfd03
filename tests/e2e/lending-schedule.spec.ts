import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { fileURLToPath } from 'node:url';
import { openView, pairThroughEmulator, startStack, type Stack } from './stack';

/**
 * The lending terms in the window: the Schedule card edited with the keyboard, saved and
 * read back; axe on the card; a 480 px window; a dashboard held back by a signed-out runtime,
 * by the machine's schedule and by a profile's own hours.
 * RUNNER_TRAY_SCREENSHOTS=1 also writes docs/screenshots/schedule-card.png and dashboard-held-back.png.
 */
const SIGNED_OUT = fileURLToPath(new URL('../fixtures/signed-out-runtime.mjs', import.meta.url));
const shots = process.env.RUNNER_TRAY_SCREENSHOTS === '1';
test.setTimeout(90_000);

let stack: Stack | null = null;
test.afterEach(async () => {
  await stack?.stop();
  stack = null;
});

test('the Schedule card: "mon 09-18" set with the keyboard, saved, read back after a reload; axe-clean; usable at 480 px', async ({ page }) => {
  stack = await startStack();
  await page.setViewportSize({ width: 1000, height: 900 });
  await stack.host.open(page, '#settings');
  const card = page.getByTestId('schedule-card');
  const cell = (day: number, hour: number) => page.getByTestId(`schedule-cell-${day}-${hour}`);
  await expect(page.getByTestId('schedule-summary')).toContainText('Any time');
  await card.getByRole('button', { name: 'Never' }).click();
  await cell(0, 9).focus();
  await page.keyboard.press('Space');
  for (let h = 10; h < 18; h++) {
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Space');
  }
  await expect(cell(0, 17)).toHaveAttribute('aria-label', 'Monday 17:00–18:00, lending');
  await expect(page.getByTestId('schedule-summary')).toContainText('Mon 09:00–18:00');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');

  await page.reload();
  await expect(cell(0, 9)).toHaveAttribute('aria-selected', 'true');
  await expect(cell(0, 17)).toHaveAttribute('aria-selected', 'true');
  await expect(cell(0, 18)).toHaveAttribute('aria-selected', 'false');
  await expect(cell(1, 9)).toHaveAttribute('aria-selected', 'false');
  await expect(page.getByTestId('schedule-summary')).toContainText('Mon 09:00–18:00');

  const results = await new AxeBuilder({ page }).include('[data-testid=schedule-card]').analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  if (shots) await card.screenshot({ path: 'docs/screenshots/schedule-card.png' });

  await page.setViewportSize({ width: 480, height: 800 });
  await expect(cell(0, 23)).toBeAttached();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(480);
  await cell(0, 23).scrollIntoViewIfNeeded();
  await cell(0, 23).click();
  await expect(page.getByTestId('schedule-summary')).toContainText('Mon 09:00–18:00 and 23:00–24:00');
});

test('a held-back runner says what it waits for on the dashboard, amber', async ({ page }) => {
  stack = await startStack({ runtime: SIGNED_OUT });
  await page.setViewportSize({ width: 900, height: 640 });
  await pairThroughEmulator(page, stack);
  await openView(page, 'dashboard');
  await expect(page.getByTestId('status-line')).toHaveText('Idle · not claiming', { timeout: 20_000 });
  await expect(page.getByTestId('status-held')).toContainText('Waiting: Claude Code: installed, not signed in');
  await expect(page.getByTestId('status-reason')).toHaveClass(/status-held/);
});

test('outside the lending hours the dashboard says so, amber, and when claiming resumes', async ({ page }) => {
  stack = await startStack();
  await page.setViewportSize({ width: 900, height: 640 });
  await pairThroughEmulator(page, stack);
  // Lend tomorrow 09:00–10:00 only (Monday is row 0): now is outside the hours.
  // getDay() counts from Sunday, the grid's rows from Monday: today's row + 1 is getDay().
  const tomorrow = new Date().getDay();
  await openView(page, 'settings');
  await page.getByTestId('schedule-card').getByRole('button', { name: 'Never' }).click();
  await page.getByTestId(`schedule-cell-${tomorrow}-9`).click();
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');
  await openView(page, 'dashboard');
  await expect(page.getByTestId('status-line')).toHaveText('Idle · not claiming', { timeout: 20_000 });
  await expect(page.getByTestId('status-held')).toContainText(/Outside your lending hours — resumes \w{3} 09:00/);
  await expect(page.getByTestId('status-reason')).toHaveClass(/status-held/);
  if (shots) await page.screenshot({ path: 'docs/screenshots/dashboard-held-back.png' });
});

test("a profile's own hours: set in its Work settings, checked with the schedule's rule, and said on the dashboard", async ({ page }) => {
  stack = await startStack();
  await page.setViewportSize({ width: 900, height: 640 });
  await pairThroughEmulator(page, stack);
  await openView(page, 'settings');
  const field = page.getByTestId('setting-profileLendSchedule');
  await field.fill('weekdays');
  await expect(page.getByTestId('error-profileLendSchedule')).toContainText('must be day and hour ranges');
  await field.fill('never');
  await expect(page.getByTestId('error-profileLendSchedule')).toHaveCount(0);
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');
  await openView(page, 'dashboard');
  await expect(page.getByTestId('status-held')).toContainText("Outside this profile's hours — no hour of the week is open", { timeout: 20_000 });
});
