import { expect, test } from '@playwright/test';
import { openDetail, openRequests, requestId, signInAs, startRequestsStack, type RequestsStack } from './requests-helpers';

// A resume the control plane refuses because a ceiling is reached offers to raise it: the
// ceilings form (checked as typed) sends the resume again with a termination_bound [v1].
// The real headless host against the emulator.

let stack: RequestsStack;

test.afterEach(async () => {
  await stack?.stop();
});

test('a resume refused for its iteration ceiling raises the ceiling from the window and resumes', async ({ page }) => {
  stack = await startRequestsStack();
  const id = requestId(stack.emu, 'in_progress');
  stack.emu.admin.updateBuildRequest(id, { status: 'paused', max_iterations: 3, iterations_used: 3 });
  await openRequests(page, stack);
  await signInAs(page, stack, 'Ada Admin');
  await openDetail(page, id);

  await page.getByTestId('action-resume').click();
  await page.getByTestId('confirm-action').click();
  await expect(page.getByTestId('action-error')).toContainText('Iteration ceiling reached');
  const form = page.getByTestId('raise-bound');
  await expect(form).toBeVisible();
  await expect(page.getByTestId('bound-maxIterations')).toHaveValue('3');

  // Checked as typed: nothing changed, or a bad number, sends nothing.
  await expect(page.getByTestId('raise-and-resume')).toBeDisabled();
  await page.getByTestId('bound-maxIterations').fill('0');
  await expect(page.getByTestId('bound-error')).toHaveText('Iterations must be above 0.');
  await expect(page.getByTestId('raise-and-resume')).toBeDisabled();
  await page.getByTestId('bound-costBudgetUsd').fill('lots');
  await page.getByTestId('bound-maxIterations').fill('12');
  await expect(page.getByTestId('bound-error')).toHaveText('The budget is dollars, like 25.00.');
  await page.getByTestId('bound-costBudgetUsd').fill('40.00');
  await expect(page.getByTestId('bound-error')).toHaveCount(0);

  await page.getByTestId('raise-and-resume').click();
  await expect(page.getByTestId('action-notice')).toBeVisible();
  await expect(page.getByTestId('request-detail').getByTestId('request-status')).toContainText(/in progress/i);
  expect(stack.emu.admin.showBuildRequest(id).request).toMatchObject({ status: 'in_progress', max_iterations: 12, cost_budget_usd: '40.00' });
  const resumed = stack.emu.admin.listEvents({ type: 'forge.request.resumed' });
  expect(resumed).toHaveLength(1);
});
