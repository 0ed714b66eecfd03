import { expect, test } from '@playwright/test';
import { openRequests, signInAs, startRequestsStack, type RequestsStack } from './requests-helpers';

/** The demo seed's six plus these: the board the issue asks to stay light. */
const EXTRA = 994;
/** The budget for the board's DOM, whatever the number of requests. */
const MAX_BOARD_NODES = 300;

let stack: RequestsStack;

test.afterEach(async () => {
  await stack?.stop();
});

test('with 1,000 requests the board draws only the rows in view, scrolls to the last, and opens it from the keyboard', async ({ page }) => {
  stack = await startRequestsStack();
  for (let i = 1; i <= EXTRA; i++) stack.emu.admin.createBuildRequest({ title: `Bulk request ${String(i).padStart(4, '0')}`, status: 'open' });
  await openRequests(page, stack);
  await signInAs(page, stack, 'Ada Admin');

  const board = page.getByTestId('request-board');
  await expect(page.getByTestId('filter-all')).toContainText('1000', { timeout: 15_000 });
  await expect(board).toHaveAttribute('aria-rowcount', '1001');
  const nodes = () => board.evaluate((el) => el.querySelectorAll('*').length + 1);
  const atTop = await nodes();
  test.info().annotations.push({ type: 'board DOM nodes at the top', description: String(atTop) });
  expect(atTop).toBeLessThanOrEqual(MAX_BOARD_NODES);

  // Keyboard as before: Tab goes from one row's button to the next row's.
  await board.locator('[aria-rowindex="2"]').getByRole('button').focus();
  await page.keyboard.press('Tab');
  await expect(board.locator('[aria-rowindex="3"]').getByRole('button')).toBeFocused();

  // Scrolling reaches the last request (rows are measured as they are drawn, so the end moves: scroll until it is there).
  const scroller = page.getByTestId('request-board-scroll');
  const last = board.locator('[aria-rowindex="1001"]');
  await expect(async () => {
    await scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect(last).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 10_000 });
  const atEnd = await nodes();
  test.info().annotations.push({ type: 'board DOM nodes at the end', description: String(atEnd) });
  expect(atEnd).toBeLessThanOrEqual(MAX_BOARD_NODES);

  const id = await last.getAttribute('data-request-id');
  // Newest first: the last row is the oldest request the demo seed made.
  const title = stack.emu.admin.showBuildRequest(id!).request.title;
  expect(title).not.toMatch(/^Bulk request/);
  await last.getByRole('button').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('detail-title')).toHaveText(title, { timeout: 10_000 });
});
