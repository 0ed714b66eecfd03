import { expect, test, type Page } from '@playwright/test';
import { openDetail, openRequests, requestId, row, signInAs, startRequestsStack, type RequestsStack } from './requests-helpers';

let stack: RequestsStack;

test.afterEach(async () => {
  await stack?.stop();
});

async function asAdmin(page: Page): Promise<void> {
  stack = await startRequestsStack();
  await openRequests(page, stack);
  await signInAs(page, stack, 'Ada Admin');
}

async function confirmAction(page: Page, action: 'pause' | 'resume' | 'cancel', reason = ''): Promise<void> {
  await page.getByTestId(`action-${action}`).click();
  await expect(page.getByTestId('confirm-panel')).toBeVisible();
  if (reason) await page.getByTestId('reason').fill(reason);
  await page.getByTestId('confirm-action').click();
}

test('the board shows every request with status, phase, risk, ceilings and age, and filters by status', async ({ page }) => {
  await asAdmin(page);
  const board = page.getByTestId('request-board');
  await expect(page.getByTestId('request-row')).toHaveCount(6);
  const active = row(page, requestId(stack.emu, 'in_progress'));
  await expect(active.getByTestId('request-status')).toHaveText('In progress');
  await expect(active).toContainText('Add invoice export to the billing page');
  await expect(active).toContainText('Build');
  await expect(active).toContainText('Medium');
  await expect(active.getByTestId('request-ceilings')).toContainText('3 of 12');
  await expect(active.getByTestId('request-ceilings')).toContainText('$25.00');
  await expect(active.getByRole('meter', { name: /Iterations/ })).toHaveAttribute('value', '3');
  // Nullable ceilings read as "no limit".
  await expect(row(page, requestId(stack.emu, 'open')).getByTestId('request-ceilings')).toContainText('no limit');

  await page.getByTestId('filter-paused').click();
  await expect(board.getByTestId('request-row')).toHaveCount(1);
  await expect(board.getByTestId('request-status')).toHaveText('Paused');
  await page.getByTestId('filter-blocked').click();
  await expect(board).toContainText('Rotate webhook signing keys');
  await page.getByTestId('filter-all').click();
  await expect(board.getByTestId('request-row')).toHaveCount(6);

  // New requests appear without a reload (the board refreshes every few seconds).
  stack.emu.admin.createBuildRequest({ title: 'Speed up the nightly build', status: 'open' });
  await expect(page.getByTestId('request-row')).toHaveCount(7, { timeout: 10_000 });
  await expect(board).toContainText('Speed up the nightly build');
});

test('the detail shows phase runs, open gates, plan versions with confidence, questions and answers, tasks with checkpoints, and changesets', async ({
  page,
}) => {
  await asAdmin(page);
  await openDetail(page, requestId(stack.emu, 'in_progress'));
  await expect(page.getByTestId('detail-title')).toHaveText('Add invoice export to the billing page');
  await expect(page.getByTestId('phase-runs').locator('li')).toHaveCount(4);
  await expect(page.getByTestId('phase-runs')).toContainText('Plan review');
  const gates = page.getByTestId('gates').locator('li');
  await expect(gates.first()).toContainText('Open');
  await expect(gates.first()).toContainText('Review the export service changes');
  await expect(page.getByTestId('plan-confidence')).toHaveText(['82% confidence', '55% confidence']);
  await expect(page.getByTestId('clarifications').first()).toContainText('Which currencies must the export support?');
  await expect(page.getByTestId('clarifications').first()).toContainText('EUR, USD and GBP.');
  await expect(page.getByTestId('clarifications').nth(1)).toContainText('Not answered yet');
  await expect(page.getByTestId('tasks').locator('li')).toHaveCount(4);
  await expect(page.getByTestId('tasks')).toContainText('Per-currency totals');
  await expect(page.getByTestId('changesets')).toContainText('feat(billing): invoice export service');
  await expect(page.getByTestId('changesets')).toContainText('+214');
  await expect(page.getByTestId('changesets').getByRole('link', { name: 'pull request' })).toHaveAttribute('href', 'https://github.com/acme/web/pull/412');
  await expect(page.getByTestId('request-turns')).toHaveCount(0);
  await page.getByRole('button', { name: '← All requests' }).click();
  await expect(page.getByTestId('request-board')).toBeVisible();
});

test('pause, resume and cancel: each says what will happen, takes an optional reason, and acts', async ({ page }) => {
  await asAdmin(page);
  const id = requestId(stack.emu, 'in_progress');
  await openDetail(page, id);
  await expect(page.getByTestId('action-resume')).toBeDisabled();

  await page.getByTestId('action-pause').click();
  await expect(page.getByTestId('confirm-what')).toContainText('No runner claims new work for this request from now on');
  await expect(page.getByTestId('confirm-what')).toContainText('halts at its next task checkpoint');
  // The reason is validated as it is typed: at most 2000 characters after trimming.
  await page.getByTestId('reason').fill(`  ${'x'.repeat(2001)}  `);
  await expect(page.getByTestId('reason-error')).toHaveText('The reason can be at most 2000 characters (it has 2001).');
  await expect(page.getByTestId('confirm-action')).toBeDisabled();
  await page.getByTestId('reason').fill('  Release freeze  ');
  await expect(page.getByTestId('reason-error')).toHaveCount(0);
  await page.getByTestId('confirm-action').click();
  await expect(page.getByTestId('action-notice')).toContainText('Paused.');
  await expect(page.getByTestId('request-detail').getByTestId('request-status').first()).toHaveText('Paused');
  expect(stack.emu.admin.listEvents({ type: 'forge.request.paused' }).at(-1)?.data).toMatchObject({ reason: 'Release freeze' });

  await page.getByTestId('action-resume').click();
  await expect(page.getByTestId('confirm-what')).toContainText('restarts from its last completed checkpoint (after task #');
  await expect(page.getByTestId('confirm-what')).toContainText('Per-currency totals');
  await page.getByTestId('confirm-action').click();
  await expect(page.getByTestId('action-notice')).toContainText('Resumed');
  await expect(page.getByTestId('request-detail').getByTestId('request-status').first()).toHaveText('In progress');

  await page.getByTestId('action-cancel').click();
  await expect(page.getByTestId('confirm-what')).toContainText('This is final');
  await page.getByTestId('confirm-action').click();
  await expect(page.getByTestId('request-detail').getByTestId('request-status').first()).toHaveText('Canceled');
  for (const action of ['pause', 'resume', 'cancel']) await expect(page.getByTestId(`action-${action}`)).toBeDisabled();
});

test('with a confirmation handoff: "Confirm in the browser", followed until a human decides', async ({ page }) => {
  await asAdmin(page);
  stack.emu.admin.setConfirmationMode(true);
  const id = requestId(stack.emu, 'in_progress');
  await openDetail(page, id);
  await confirmAction(page, 'pause', 'hold for review');
  await expect(page.getByTestId('handoff')).toContainText('Confirm in the browser');
  const pending = stack.emu.admin.listConfirmations()[0]!;
  await expect(page.getByTestId('handoff-link')).toHaveAttribute('href', `${stack.emu.url}/confirm/${pending.id}`);
  await expect(page.getByTestId('handoff-link')).toHaveAttribute('target', '_blank');
  await expect(page.getByTestId('action-cancel')).toBeDisabled();
  await expect(page.getByTestId('request-detail').getByTestId('request-status').first()).toHaveText('In progress');
  stack.emu.admin.decideConfirmation(pending.id, 'confirm');
  await expect(page.getByTestId('action-notice')).toContainText('Confirmed in the browser.', { timeout: 10_000 });
  await expect(page.getByTestId('request-detail').getByTestId('request-status').first()).toHaveText('Paused');
  await expect(page.getByTestId('handoff')).toHaveCount(0);

  // Declined: nothing changes, and the window says so.
  await confirmAction(page, 'resume');
  await expect(page.getByTestId('handoff')).toBeVisible();
  stack.emu.admin.decideConfirmation(stack.emu.admin.listConfirmations()[0]!.id, 'decline');
  await expect(page.getByTestId('action-notice')).toHaveText('Declined in the browser: nothing changed.', { timeout: 10_000 });
  await expect(page.getByTestId('request-detail').getByTestId('request-status').first()).toHaveText('Paused');

  // Cancel through a handoff too; the board marks a request awaiting confirmation.
  await confirmAction(page, 'cancel');
  await expect(page.getByTestId('handoff')).toBeVisible();
  await page.getByRole('button', { name: '← All requests' }).click();
  await expect(row(page, id)).toContainText('Awaiting confirmation');
  await openDetail(page, id);
  stack.emu.admin.decideConfirmation(stack.emu.admin.listConfirmations()[0]!.id, 'confirm');
  await expect(page.getByTestId('request-detail').getByTestId('request-status').first()).toHaveText('Canceled', { timeout: 10_000 });
});

test('refusals say what to do in one line: the role, a wrong state, the network', async ({ page }) => {
  await asAdmin(page);
  await openDetail(page, requestId(stack.emu, 'in_progress'));
  const pause = '/api/commands/software_factory.request.pause';

  stack.emu.admin.addFault({
    route: pause,
    error: { rate: 1, status: 403, body: { error: 'forbidden', message: 'software_factory.request.pause requires the tenant_admin role (you are member)' } },
    remaining: 1,
  });
  await confirmAction(page, 'pause');
  await expect(page.getByTestId('action-error')).toHaveText(
    'Not allowed: software_factory.request.pause requires the tenant_admin role (you are member). Ask a tenant admin to do it.',
  );

  stack.emu.admin.addFault({
    route: pause,
    error: { rate: 1, status: 409, body: { error: 'invalid_transition', message: 'cannot pause a closed request' } },
    remaining: 1,
  });
  await page.getByTestId('confirm-action').click();
  await expect(page.getByTestId('action-error')).toHaveText('Cannot pause a closed request. Refresh to see where the request is now.');

  stack.emu.admin.addFault({ route: pause, drop: { rate: 1, when: 'before' }, remaining: 1 });
  await page.getByTestId('confirm-action').click();
  await expect(page.getByTestId('action-error')).toContainText('Cannot reach the control plane');
  await expect(page.getByTestId('action-error')).toContainText('Check the connection, then try again.');

  // Nothing was paused by any of them; the panel is still there to try again.
  await page.getByTestId('confirm-action').click();
  await expect(page.getByTestId('action-notice')).toContainText('Paused.');
});
