import { expect, test } from '@playwright/test';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { openView, pairThroughEmulator, pendingCode, startStack, type Stack } from './stack';

/**
 * Two profiles in one host, each against its own control plane (two tenants): the
 * switcher, per-profile pairing and pause, and the combined Turns view, clicked through
 * in the real window against the real headless host.
 */
test.describe.configure({ mode: 'serial' });

let stack: Stack;
let lab: RunningEmulator;

test.beforeAll(async () => {
  stack = await startStack();
  lab = await startEmulator({
    config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, leaseHeartbeatMs: 500, longPollMaxMs: 2000, caps: { tenant: 8, project: 8, defaultAccount: 8 } },
  });
});

test.afterAll(async () => {
  await stack?.stop();
  await lab?.close();
});

test('a second profile is added in Settings, paired on its own control plane, and shown by the switcher', async ({ page }) => {
  await pairThroughEmulator(page, stack);
  // One profile: the window looks as a single runner's, no switcher.
  await expect(page.getByTestId('profile-switcher')).toHaveCount(0);

  await openView(page, 'settings');
  await page.getByTestId('profile-add').click();
  await page.getByTestId('profile-add-name').fill('Lab tenant');
  await page.getByTestId('profile-add-url').fill(lab.url);
  await page.getByTestId('profile-add-save').click();

  const chips = page.getByTestId('profile-chip');
  await expect(chips).toHaveCount(2);
  // The new profile is shown at once, unpaired: its settings, not the first one's.
  await expect(page.locator('[data-testid="profile-chip"][aria-current="true"]')).toContainText('Lab tenant');
  await expect(page.getByTestId('settings-scope')).toContainText('Lab tenant');
  await expect(page.getByTestId('setting-controlPlaneUrl')).toHaveValue(lab.url);
  await expect(page.getByTestId('status-line')).toContainText(/not paired/i);

  await openView(page, 'pairing');
  await page.getByTestId('pairing-start').click();
  lab.admin.approvePairing(await pendingCode(lab));
  await expect(page.getByTestId('paired-card')).toBeVisible({ timeout: 15_000 });
  await expect(page.locator('[data-profile="lab-tenant"] [data-testid="profile-chip-state"]')).toHaveText('Idle', { timeout: 15_000 });

  // Each control plane saw only its own runner.
  expect(stack.emu.admin.listRunners()).toHaveLength(1);
  expect(lab.admin.listRunners()).toHaveLength(1);
});

test('each profile claims only its own work; pausing one leaves the other working; Turns shows whose turn is whose', async ({ page }) => {
  await stack.host.open(page, '#turns');
  const own = stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep', seat: { id: 's1', name: 'Builder' } });
  const theirs = lab.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep', seat: { id: 's2', name: 'Lab builder' } });
  const active = page.getByTestId('active-turn');
  await expect(active).toHaveCount(2, { timeout: 15_000 });
  await expect(page.locator(`[data-turn-id="${own.id}"] [data-testid="turn-profile"]`)).toHaveText('Default');
  await expect(page.locator(`[data-turn-id="${theirs.id}"] [data-testid="turn-profile"]`)).toHaveText('Lab tenant');
  expect(stack.emu.admin.getUnit(own.id)?.last_runner_id).toBeTruthy();
  expect(lab.admin.getUnit(theirs.id)?.last_runner_id).toBeTruthy();

  // A new window shows the first profile; show the Lab profile and pause it from the header.
  await expect(page.locator('[data-testid="profile-chip"][aria-current="true"]')).toContainText('Default');
  await page.locator('[data-profile="lab-tenant"]').click();
  await expect(page.locator('[data-testid="profile-chip"][aria-current="true"]')).toContainText('Lab tenant');
  await page.getByTestId('pause').click();
  await expect(page.getByTestId('resume')).toBeVisible();
  await expect(page.locator('[data-profile="lab-tenant"] [data-testid="profile-chip-state"]')).toHaveText('Paused');
  await expect(page.locator('[data-profile="default"] [data-testid="profile-chip-state"]')).toHaveText(/Working/);

  // Switching shows the other profile's own state: still working, Pause offered.
  await page.locator('[data-profile="default"]').click();
  await expect(page.getByTestId('pause')).toBeVisible();
  await expect(page.getByTestId('status-line')).toContainText(/Working|Running/);

  if (process.env.RUNNER_TRAY_SCREENSHOTS === '1') {
    await page.setViewportSize({ width: 900, height: 640 });
    await page.screenshot({ path: 'docs/screenshots/profiles-turns.png' });
    await openView(page, 'settings');
    await page.screenshot({ path: 'docs/screenshots/profiles-settings.png' });
  }
});
