import { expect, test } from '@playwright/test';
import { openDetail, openRequests, pairHost, requestId, row, signInAs, startRequestsStack, type RequestsStack } from './requests-helpers';

let stack: RequestsStack;

test.setTimeout(60_000);
test.afterEach(async () => {
  await stack?.stop();
});

test('pausing a request lets this runner finish its running turn, then claims nothing more for it', async ({ page }) => {
  stack = await startRequestsStack();
  await pairHost(stack);
  await openRequests(page, stack);
  await signInAs(page, stack, 'Ada Admin');
  const id = requestId(stack.emu, 'in_progress');
  const first = stack.emu.admin.enqueueTurnExecution({
    brain: 'claude',
    prompt: 'fake:wait:5000',
    build_request_id: id,
    seat: { id: 'seat-1', name: 'Builder' },
  });

  // The board says this runner works on it, live.
  await expect(row(page, id).getByTestId('running-here')).toBeVisible({ timeout: 15_000 });
  await openDetail(page, id);
  const live = page.locator(`[data-testid=request-turn-active][data-turn-id="${first.id}"]`);
  await expect(live).toContainText('Turn for Builder');

  await page.getByTestId('action-pause').click();
  await page.getByTestId('confirm-action').click();
  await expect(page.getByTestId('action-notice')).toContainText('Paused.');
  await expect(live.getByTestId('turn-lease')).toHaveText('· Pause requested: finishing this turn');
  const second = stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:10', build_request_id: id });

  // It reaches its end and succeeds: a pause is not a cancel.
  const done = page.locator(`[data-testid=request-turn-done][data-turn-id="${first.id}"]`);
  await expect(done).toContainText('Succeeded', { timeout: 15_000 });
  await expect(live).toHaveCount(0);
  // Two more heartbeats of this runner, a slot free all along: the paused request's unit is still queued.
  const last = stack.emu.admin.listEvents({ limit: 1_000_000 }).at(-1)?.seq ?? 0;
  const beat = await stack.emu.admin.waitForEvent('runner.heartbeat', { since: last, timeoutMs: 10_000 });
  await stack.emu.admin.waitForEvent('runner.heartbeat', { since: beat.seq, timeoutMs: 10_000 });
  expect(stack.emu.admin.getUnit(second.id)?.status).toBe('queued');
  await expect(page.getByTestId('request-turn-active')).toHaveCount(0);
});

test('canceling a request stops this runner’s running turn within 2 s, visible live', async ({ page }) => {
  stack = await startRequestsStack();
  await pairHost(stack);
  await openRequests(page, stack);
  await signInAs(page, stack, 'Ada Admin');
  const id = requestId(stack.emu, 'in_progress');
  const unit = stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep', build_request_id: id });
  await openDetail(page, id);
  const live = page.locator(`[data-testid=request-turn-active][data-turn-id="${unit.id}"]`);
  await expect(live).toContainText('Running', { timeout: 15_000 });
  await expect(page.getByTestId('request-detail').getByTestId('running-here')).toBeVisible();

  await page.getByTestId('action-cancel').click();
  await page.getByTestId('reason').fill('Wrong repository');
  await page.getByTestId('confirm-action').click();
  const done = page.locator(`[data-testid=request-turn-done][data-turn-id="${unit.id}"]`);
  await expect(done).toContainText('Canceled', { timeout: 15_000 });
  await expect(live).toHaveCount(0);
  await expect(done).toContainText('request_canceled');
  await expect.poll(() => stack.emu.admin.listResults({ unit_id: unit.id })[0]?.status, { timeout: 5_000 }).toBe('canceled');
});
