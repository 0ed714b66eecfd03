import { expect, test, type Page } from '@playwright/test';
import { openView, pairThroughEmulator, startStack, type Stack } from './stack';

/**
 * Narrow windows: at 1000 px the history's headline column keeps room for a sentence's
 * start, and at 480 px the header and the tabs wrap instead of running off the right
 * edge. RUNNER_TRAY_SCREENSHOTS=1 also writes docs/screenshots/narrow-*.png (a test run
 * leaves the tree as it was).
 */
test.describe.configure({ mode: 'serial' });
test.setTimeout(60_000);

const OUT = 'docs/screenshots';
const shots = process.env.RUNNER_TRAY_SCREENSHOTS === '1';
let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack({ args: ['--max-sessions', '2'] });
});

test.afterAll(async () => {
  await stack?.stop();
});

/** The headline column's width in characters of its own font (the average of a sentence's). */
async function headlineChars(page: Page): Promise<number> {
  return page
    .getByTestId('history-row')
    .first()
    .locator('.turn-summary')
    .evaluate((el) => {
      const context = document.createElement('canvas').getContext('2d')!;
      context.font = getComputedStyle(el).font;
      const sample = 'the quick brown fox jumps over the lazy dog';
      return el.getBoundingClientRect().width / (context.measureText(sample).width / sample.length);
    });
}

async function nothingOverflows(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

/** Every tab lies inside the window, and opens its view. */
async function everyTabReachable(page: Page): Promise<void> {
  const width = page.viewportSize()!.width;
  for (const tab of await page.getByRole('tab').all()) {
    const box = (await tab.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    await tab.click();
    await expect(page.getByRole('tabpanel')).toHaveAttribute('aria-labelledby', (await tab.getAttribute('id'))!);
    await nothingOverflows(page);
  }
}

test('at 1000 px the history keeps a readable headline column', async ({ page }) => {
  await page.setViewportSize({ width: 1000, height: 680 });
  await pairThroughEmulator(page, stack);
  for (let i = 0; i < 3; i++) {
    stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json', seat: { id: 'seat-1', name: 'Builder' } });
    await openView(page, 'turns');
    await expect(page.getByTestId('history-row')).toHaveCount(i + 1, { timeout: 20_000 });
  }
  await page.getByTestId('history-row').first().click();
  expect(await headlineChars(page)).toBeGreaterThanOrEqual(30);
  await nothingOverflows(page);
  if (shots) await page.screenshot({ path: `${OUT}/narrow-1000-turns.png`, caret: 'hide' });
  await everyTabReachable(page);
});

test('at 480 px the header and the tabs wrap, and nothing runs off the edge', async ({ page }) => {
  await page.setViewportSize({ width: 480, height: 800 });
  await stack.host.open(page, '#turns');
  await expect(page.getByTestId('history-row').first()).toBeVisible();
  await nothingOverflows(page);
  if (shots) await page.screenshot({ path: `${OUT}/narrow-480-turns.png`, caret: 'hide' });
  await everyTabReachable(page);
  for (const view of ['dashboard', 'settings'] as const) {
    await openView(page, view);
    await nothingOverflows(page);
    if (shots) await page.screenshot({ path: `${OUT}/narrow-480-${view}.png`, caret: 'hide' });
  }
});
