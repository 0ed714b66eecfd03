import { expect, test } from '@playwright/test';
import { openRequests, operatorId, row, requestId, signInAs, startRequestsStack, openDetail, type RequestsStack } from './requests-helpers';

let stack: RequestsStack;

test.afterEach(async () => {
  await stack?.stop();
});

test('an operator signs in with a device code, sees who they are, and signs out (revoked at the server)', async ({ page }) => {
  stack = await startRequestsStack();
  await openRequests(page, stack);
  await expect(page.getByTestId('sign-in')).toContainText('Sign in as an operator');
  await page.getByTestId('sign-in-start').click();
  const code = (await page.getByTestId('sign-in-code').textContent())!.trim();
  // The address to open, as a link, with the code filled in.
  await expect(page.getByTestId('sign-in-link')).toHaveText(`${stack.emu.url}/oauth/device`);
  await expect(page.getByTestId('sign-in-link')).toHaveAttribute('href', `${stack.emu.url}/oauth/device?code=${code}`);
  await expect(page.getByTestId('sign-in')).toContainText('checking every 1 s');
  stack.emu.admin.decideOAuthDeviceCode(code, operatorId(stack.emu, 'Ada Admin'));
  await expect(page.getByTestId('operator-bar')).toContainText('Ada Admin');
  await expect(page.getByTestId('operator-role')).toHaveText('Tenant admin');
  await expect(page.getByTestId('request-row')).toHaveCount(6);

  // A reload keeps the sign-in: the tokens live in the host's secret store, not the page.
  await page.reload();
  await page.getByRole('tab', { name: 'Requests' }).click();
  await expect(page.getByTestId('operator-bar')).toContainText('Ada Admin');
  const storage = await page.evaluate(() => JSON.stringify(Object.entries(sessionStorage)) + JSON.stringify(Object.entries(localStorage)) + document.cookie);
  expect(storage).not.toMatch(/oat_|ort_/);

  await page.getByTestId('sign-out').click();
  await expect(page.getByTestId('sign-in-start')).toBeVisible();
  expect(stack.emu.admin.listEvents({ type: 'oauth.revoked' }).length).toBeGreaterThanOrEqual(1);
});

test('a denied sign-in says so; another try can be canceled', async ({ page }) => {
  stack = await startRequestsStack();
  await openRequests(page, stack);
  await page.getByTestId('sign-in-start').click();
  const code = (await page.getByTestId('sign-in-code').textContent())!.trim();
  stack.emu.admin.decideOAuthDeviceCode(code, operatorId(stack.emu, 'Ada Admin'), 'deny');
  await expect(page.getByTestId('sign-in-outcome')).toHaveText('The sign-in was denied in the browser. Nothing was stored.');
  await page.getByTestId('sign-in-start').click();
  await expect(page.getByTestId('sign-in-code')).toBeVisible();
  await page.getByTestId('sign-in-cancel').click();
  await expect(page.getByTestId('sign-in-outcome')).toHaveText('Sign-in canceled.');
});

test('a member sees the lifecycle controls disabled, with the reason', async ({ page }) => {
  stack = await startRequestsStack();
  await openRequests(page, stack);
  await signInAs(page, stack, 'Max Member');
  await expect(page.getByTestId('operator-role')).toHaveText('Member');
  await openDetail(page, requestId(stack.emu, 'in_progress'));
  for (const action of ['pause', 'resume', 'cancel']) await expect(page.getByTestId(`action-${action}`)).toBeDisabled();
  await expect(page.getByTestId('lifecycle-reason')).toHaveText('Only tenant admins can pause, resume or cancel requests; you are signed in as a member.');
});

test('an expired access token is refreshed on the 401 without the operator noticing; a dead grant asks to sign in again', async ({ page }) => {
  stack = await startRequestsStack({ emulator: { accessTokenTtlMs: 2_000 } });
  await openRequests(page, stack);
  await signInAs(page, stack, 'Ada Admin');
  const id = requestId(stack.emu, 'in_progress');
  await expect(row(page, id)).toBeVisible();
  // The board refreshes every few seconds: after the token expired, the next pull refreshes it.
  await expect.poll(() => stack.emu.admin.listEvents({ type: 'oauth.token_issued' }).length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
  await openDetail(page, id);
  await expect(page.getByTestId('phase-runs')).toBeVisible();
  await expect(page.getByTestId('sign-in')).toHaveCount(0);
  await expect(page.getByTestId('detail-error')).toHaveCount(0);

  // The control plane forgets every grant: the refresh is refused, so the window asks to sign in again.
  stack.emu.admin.reset({ seed: 'demo' });
  await expect(page.getByTestId('sign-in-again')).toContainText('Sign in again', { timeout: 15_000 });
  await signInAs(page, stack, 'Ada Admin');
  await expect(page.getByTestId('request-row')).toHaveCount(6);
});
