import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { openView, pendingCode, startStack, type Stack } from './stack';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

// One stack per file, and the tests build on each other: after a failure, skip the rest.
test.describe.configure({ mode: 'serial' });

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack({ args: ['--name', 'e2e-studio'] });
});

test.afterAll(async () => {
  await stack?.stop();
});

test('pairs end to end: the code, the address, the countdown, approval on the control plane', async ({ page }) => {
  await stack.host.open(page);
  await expect(page.getByTestId('view-pairing')).toBeVisible();
  const code = await pendingCode(stack.emu);

  // The code, large and grouped, is the one the control plane waits for.
  await expect(page.getByTestId('user-code')).toHaveText(`${code.slice(0, 4)}-${code.slice(5)}`.replace('--', '-'));
  await expect(page.getByTestId('user-code')).toHaveText(/^[A-Z]{4}-[A-Z]{4}$/);
  await expect(page.getByTestId('verification-uri')).toHaveText(`${stack.emu.url}/device`);
  const open = page.getByTestId('open-verification');
  await expect(open).toHaveAttribute('target', '_blank');
  await expect(open).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(open).toHaveAttribute('href', new RegExp(`^${stack.emu.url}/device\\?code=`));

  // Copy puts the grouped code on the clipboard.
  await page.getByTestId('copy-code').click();
  await expect(page.getByText('Copied')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);

  // The countdown ticks.
  const countdown = page.getByTestId('pairing-countdown');
  await expect(countdown).toHaveText(/^Expires in \d+:\d\d$/);
  const before = await countdown.textContent();
  await expect(countdown).not.toHaveText(before ?? '', { timeout: 3000 });
  await expect(page.getByText('What happens next')).toBeVisible();

  stack.emu.admin.approvePairing(code);
  await expect(page.getByTestId('pairing-approved')).toBeVisible({ timeout: 10_000 });
  const runner = stack.emu.admin.listRunners().at(-1)!;
  await expect(page.getByTestId('paired-name')).toHaveText('e2e-studio');
  await expect(page.getByTestId('paired-id')).toHaveText(runner.id);
  // The tenant by its name (the emulator gives one, [v1]), its id beside it.
  await expect(page.getByTestId('paired-tenant-name')).toHaveText('Development tenant');
  await expect(page.getByTestId('paired-tenant-id')).toHaveText(stack.emu.admin.defaultTenantId());
  await expect(page.getByTestId('paired-control-plane')).toHaveText(stack.emu.url);
  // No keychain here: the file store is in use, and the window says so plainly.
  await expect(page.getByTestId('secret-backend')).toHaveText('an owner-only file on disk');
  await expect(page.getByTestId('secret-warning')).toContainText('owner-only file');
  await expect(page.getByTestId('status-line')).toHaveText('Idle', { timeout: 10_000 });
});

test('unpair asks once; denied and expired pairings offer to start again', async ({ page }) => {
  await stack.host.open(page, '#pairing');
  await expect(page.getByTestId('paired-card')).toBeVisible();
  await page.getByTestId('unpair').click();
  const dialog = page.getByRole('dialog', { name: 'Unpair this machine?' });
  await expect(dialog).toContainText('revoked on');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('paired-card')).toBeVisible();
  await page.getByTestId('unpair').click();
  await dialog.getByRole('button', { name: 'Unpair' }).click();
  await expect(page.getByTestId('status-line')).toHaveText('Not paired');
  await expect(page.getByTestId('pairing-start')).toHaveText('Get a pairing code');

  // Denied.
  await page.getByTestId('pairing-start').click();
  await expect(page.getByTestId('user-code')).toBeVisible();
  stack.emu.admin.denyPairing(await pendingCode(stack.emu));
  await expect(page.getByTestId('pairing-denied')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('pairing-start')).toHaveText('Start again');

  // Expired: a code that lives two seconds.
  stack.emu.admin.setConfig({ pairingExpiresInSec: 2 });
  await page.getByTestId('pairing-start').click();
  await expect(page.getByTestId('pairing-expired')).toBeVisible({ timeout: 10_000 });
  stack.emu.admin.setConfig({ pairingExpiresInSec: 600 });

  // Network trouble while waiting: said in one line, with the retry, and the code stays.
  const fault = stack.emu.admin.addFault({ route: '/api/runner/pairing/claim', error: { rate: 1, status: 503 } });
  await page.getByTestId('pairing-start').click();
  await expect(page.getByTestId('pairing-trouble')).toContainText('Cannot reach the control plane', { timeout: 10_000 });
  await expect(page.getByTestId('pairing-trouble')).toContainText(/Trying again in \d+ s/);
  await expect(page.getByTestId('user-code')).toBeVisible();
  stack.emu.admin.clearFaults(fault.id);
  stack.emu.admin.approvePairing(await pendingCode(stack.emu));
  await expect(page.getByTestId('paired-card')).toBeVisible({ timeout: 15_000 });
});

test('unpair with the control plane unreachable offers to forget on this machine', async ({ page }) => {
  await stack.host.open(page, '#pairing');
  await expect(page.getByTestId('paired-card')).toBeVisible();
  const fault = stack.emu.admin.addFault({ route: '/api/runner/unpair', error: { rate: 1, status: 503 } });
  try {
    await page.getByTestId('unpair').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unpair' }).click();
    await expect(page.getByTestId('unpair-error')).toContainText('Could not reach the control plane');
    await expect(page.getByTestId('paired-card')).toBeVisible();
    await page.getByTestId('forget').click();
    const dialog = page.getByRole('dialog', { name: 'Forget this runner on this machine only?' });
    await dialog.getByRole('button', { name: 'Forget it here' }).click();
    await expect(page.getByTestId('status-line')).toHaveText('Not paired');
  } finally {
    stack.emu.admin.clearFaults(fault.id);
  }
});

test('imports a rost runner serve state file instead of pairing', async ({ page }) => {
  await stack.host.open(page, '#pairing');
  await expect(page.getByTestId('import-card')).toBeVisible();
  await page.getByTestId('import-path').fill('/nonexistent/rost-runner-00000000.json');
  await page.getByTestId('import-submit').click();
  await expect(page.getByTestId('import-error')).toBeVisible();

  const credentials = stack.emu.admin.createRunner({ name: 'from-rost' });
  const file = path.join(stack.host.dataDir, 'rost-runner-state.json');
  writeFileSync(
    file,
    JSON.stringify({ runner_id: credentials.runner_id, runner_secret: credentials.runner_secret, tenant_id: credentials.tenant_id, name: 'from-rost' }),
    { mode: 0o600 },
  );
  await page.getByTestId('import-path').fill(file);
  await page.getByTestId('import-submit').click();
  await expect(page.getByTestId('paired-card')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('paired-id')).toHaveText(credentials.runner_id);
  await expect(page.getByTestId('import-done')).toContainText('Imported from the rost runner serve state file');
  await openView(page, 'dashboard');
  await expect(page.getByTestId('fig-heartbeat')).toContainText('ago', { timeout: 10_000 });
});

test('pairs with a code from the web page: "Have a code from the web? Enter it"', async ({ page }) => {
  await stack.host.open(page, '#pairing');
  await expect(page.getByTestId('paired-card')).toBeVisible();
  await page.getByTestId('unpair').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Unpair' }).click();
  await expect(page.getByTestId('status-line')).toHaveText('Not paired');

  const entry = page.getByTestId('code-entry');
  await expect(entry).toContainText('Have a code from the web? Enter it');
  await page.getByTestId('code-entry-input').fill('not a code');
  await page.getByTestId('code-entry-submit').click();
  await expect(page.getByTestId('code-entry-error')).toContainText('That is not a pairing code');

  const issued = stack.emu.admin.issuePairingCode({ name: '' });
  await page.getByTestId('code-entry-input').fill(issued.user_code.toLowerCase());
  await page.getByTestId('code-entry-submit').click();
  await expect(page.getByTestId('paired-card')).toBeVisible({ timeout: 15_000 });
  await expect(page.getByTestId('paired-name')).toHaveText('e2e-studio');
});
