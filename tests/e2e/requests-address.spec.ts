import { expect, test } from '@playwright/test';
import { openDetail, openRequests, operatorId, requestId, row, startRequestsStack, type RequestsStack } from './requests-helpers';

let stack: RequestsStack;

test.afterEach(async () => {
  await stack?.stop();
});

test('the sign-in code and address have Copy buttons, like the pairing code', async ({ page, context }) => {
  stack = await startRequestsStack();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.host.origin });
  await openRequests(page, stack);
  await page.getByTestId('sign-in-start').click();
  const code = (await page.getByTestId('sign-in-code').textContent())?.trim() ?? '';
  await page.getByTestId('sign-in-copy-code').click();
  await expect(page.getByTestId('sign-in-copy-code').locator('..')).toContainText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(code);
  await expect(page.getByRole('button', { name: 'Copy sign-in code' })).toBeVisible();
  await expect(page.getByTestId('sign-in-copy-address')).toBeVisible();
  stack.emu.admin.decideOAuthDeviceCode(code, operatorId(stack.emu, 'Ada Admin'));
  await expect(page.getByTestId('operator-bar')).toContainText('Ada Admin', { timeout: 10_000 });
});

test("a request's detail has its own address; its times tick, its age fits, its budget reads spent of limit", async ({ page, context }) => {
  stack = await startRequestsStack();
  await openRequests(page, stack);
  await page.getByTestId('sign-in-start').click();
  const code = (await page.getByTestId('sign-in-code').textContent())?.trim() ?? '';
  stack.emu.admin.decideOAuthDeviceCode(code, operatorId(stack.emu, 'Ada Admin'));
  await expect(page.getByTestId('operator-bar')).toContainText('Ada Admin', { timeout: 10_000 });

  // Every age on the board fits its column (nothing cut to "1…").
  await expect(page.getByTestId('request-row')).toHaveCount(6);
  const clipped = await page.locator('.req-age').evaluateAll((cells) => cells.filter((c) => c.scrollWidth > c.clientWidth).length);
  expect(clipped).toBe(0);

  const id = requestId(stack.emu, 'in_progress');
  await openDetail(page, id);
  await expect(page).toHaveURL(new RegExp(`#requests/${id}$`));
  await expect(page.getByTestId('request-detail').getByTestId('request-ceilings')).toContainText('spent — of $25.00');

  // The address opens the same detail in another tab of this browser.
  const other = await context.newPage();
  try {
    await other.goto(`${stack.host.origin}/#requests/${id}`);
    await expect(other.getByTestId('detail-title')).toHaveText('Add invoice export to the billing page', { timeout: 10_000 });
  } finally {
    await other.close();
  }

  // Back to the board, and the browser's Back returns to the detail.
  await page.getByRole('button', { name: '← All requests' }).click();
  await expect(page).toHaveURL(/#requests$/);
  await expect(page.getByTestId('request-board')).toBeVisible();
  await page.goBack();
  await expect(page.getByTestId('detail-title')).toBeVisible();

  // A paused request says why (the control plane's status_reason); who paused it is not on the wire.
  await page.goto(`${stack.host.origin}/#requests/${requestId(stack.emu, 'paused')}`);
  await expect(page.getByTestId('detail-status-reason')).toContainText('Why it is paused: Operator hold during the release freeze', { timeout: 10_000 });

  // A request made a moment ago: its "created … ago" counts up while the detail is open.
  const fresh = stack.emu.admin.createBuildRequest({ title: 'Tick tock', status: 'open' });
  await page.goto(`${stack.host.origin}/#requests/${fresh.id}`);
  await expect(page.getByTestId('detail-title')).toHaveText('Tick tock', { timeout: 10_000 });
  const created = page.getByTestId('request-detail').getByText(/^created \d+ s ago$/);
  const first = await created.textContent();
  await expect(created).not.toHaveText(first ?? '', { timeout: 3000 });
  await expect(row(page, fresh.id)).toHaveCount(0);
});
