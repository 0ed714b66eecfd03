import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHeadlessHost, type RunningHost } from './headless-host';

/**
 * A Sechroom profile set up from the window, against the real headless host and the
 * emulator's Work Layer: the Sechroom instance card is filled, checked, saved, and still
 * there after a reload; the Work view follows the profile shown (the Sechroom profile's
 * briefs, then the Rost profile's "belongs to Sechroom profiles"). SECHROOM_TOKEN is scoped
 * to the new profile with SECHROOM_TOKEN_PROFILE and never reaches the page.
 * RUNNER_TRAY_SCREENSHOTS=1 also writes docs/screenshots/sechroom-settings.png.
 */
test.setTimeout(90_000);

let emu: RunningEmulator;
let host: RunningHost;
let root: string;

test.afterAll(async () => {
  await host?.stop();
  await emu?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function expectNoSeriousViolations(page: Page, selector: string): Promise<void> {
  const results = await new AxeBuilder({ page }).include(selector).analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious).toEqual([]);
}

test('a Sechroom profile is configured in Settings, keeps its settings across a reload, and the Work view follows the profile shown', async ({ page }) => {
  emu = await startEmulator({});
  root = mkdtempSync(path.join(os.tmpdir(), 'rt-sechroom-root-'));
  const minted = emu.sechroom.mintToken();
  const brief = emu.sechroom.createBrief({ title: 'Invoice export for the billing team' });
  host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store'], {
    SECHROOM_TOKEN: minted.access_token,
    SECHROOM_TOKEN_PROFILE: 'codex-lab',
  });
  await host.open(page, '#settings');
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  // The Rost profile has no Sechroom card.
  await expect(page.getByTestId('settings-form')).toBeVisible();
  await expect(page.getByTestId('sechroom-card')).toHaveCount(0);

  // Add the Sechroom profile: the window switches to it and shows its card, with the seed's defaults.
  await page.getByTestId('profile-add').click();
  await page.getByTestId('profile-add-name').fill('Codex lab');
  await page.getByTestId('profile-add-form').getByLabel('Control plane').selectOption('sechroom');
  await page.getByTestId('profile-add-save').click();
  const card = page.getByTestId('sechroom-card');
  await expect(card.getByTestId('sechroom-form')).toBeVisible();
  await expect(card.getByTestId('sechroom-instance.ttlSeconds')).toHaveValue('600');
  await expect(card.getByTestId('sechroom-credential')).toHaveText(/^Token from SECHROOM_TOKEN/);
  await expect(card.getByTestId('sechroom-restart')).toContainText('restarts this profile’s executor');

  // A wrong field is marked with the seed's message, and nothing is saved.
  await card.getByTestId('sechroom-baseUrl').fill('http://user:pw@127.0.0.1/x');
  await card.getByTestId('sechroom-instance.ttlSeconds').fill('5');
  await card.getByTestId('sechroom-save').click();
  await expect(card.getByTestId('sechroom-baseUrl-error')).toContainText('without credentials');
  await expect(card.getByTestId('sechroom-instance.ttlSeconds-error')).toHaveText('--ttl must be a whole number of seconds in [30, 600]');
  await expect(card.getByTestId('sechroom-instance.root-error')).toHaveText('--root is required');
  await expect(card.getByTestId('sechroom-status')).toHaveText('Fix the fields marked above to save.');
  await expectNoSeriousViolations(page, '[data-testid=sechroom-card]');

  // Fixed and saved.
  await card.getByTestId('sechroom-baseUrl').fill(emu.sechroomUrl);
  await card.getByTestId('sechroom-tenant').fill(minted.tenant);
  await card.getByTestId('sechroom-instance.instanceKey').fill('codex-lab');
  await card.getByTestId('sechroom-instance.capabilityKeys').fill('dotnet, docs');
  await card.getByTestId('sechroom-instance.root').fill(root);
  await card.getByTestId('sechroom-instance.ttlSeconds').fill('300');
  await card.getByTestId('sechroom-deliver').uncheck();
  await card.getByTestId('sechroom-save').click();
  await expect(card.getByTestId('sechroom-status')).toHaveText('Saved; the executor started again with them.');
  // The instance registers with the Work Layer on the scoped token.
  await expect.poll(() => emu.sechroom.listInstances().map((i) => i.instanceKey)).toContain('codex-lab');

  if (process.env.RUNNER_TRAY_SCREENSHOTS) {
    await page.setViewportSize({ width: 900, height: 640 });
    await card.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.evaluate(async () => {
      await document.fonts.ready;
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    });
    await page.screenshot({ path: 'docs/screenshots/sechroom-settings.png', caret: 'hide', animations: 'disabled' });
  }

  // After a reload the saved values are what the card shows; the token never reached the page.
  await page.reload();
  await expect(card.getByTestId('sechroom-form')).toBeVisible();
  await expect(card.getByTestId('sechroom-baseUrl')).toHaveValue(emu.sechroomUrl);
  await expect(card.getByTestId('sechroom-tenant')).toHaveValue(minted.tenant);
  await expect(card.getByTestId('sechroom-instance.instanceKey')).toHaveValue('codex-lab');
  await expect(card.getByTestId('sechroom-instance.capabilityKeys')).toHaveValue('dotnet, docs');
  await expect(card.getByTestId('sechroom-instance.root')).toHaveValue(root);
  await expect(card.getByTestId('sechroom-instance.ttlSeconds')).toHaveValue('300');
  await expect(card.getByTestId('sechroom-deliver')).not.toBeChecked();
  expect(await page.content()).not.toContain(minted.access_token);

  // The Work view shows the Sechroom profile's Work Layer …
  await page.getByRole('tab', { name: 'Work' }).click();
  const work = page.getByTestId('work-view');
  await expect(work.getByRole('heading', { level: 2 })).toHaveText('Work (Sechroom) · Codex lab');
  await expect(page.locator(`[data-testid=work-brief][data-brief-id="${brief.id}"]`)).toBeVisible();
  await expect(work.getByTestId('work-layer-url')).toHaveText(emu.sechroomUrl);
  await expectNoSeriousViolations(page, '[data-testid=work-view]');

  // … and, with the Rost profile shown, no list: the view belongs to Sechroom profiles.
  await page.locator('[data-testid=profile-chip][data-profile=default]').click();
  await expect(work).toHaveAttribute('data-profile', 'default');
  await expect(work.getByTestId('work-not-configured')).toHaveText(/^The Work view belongs to Sechroom profiles/);
  await expect(page.getByTestId('work-brief')).toHaveCount(0);
  await expect(work.getByTestId('work-layer-url')).toHaveCount(0);

  // Back to the Sechroom profile: its list again.
  await page.locator('[data-testid=profile-chip][data-profile=codex-lab]').click();
  await expect(page.locator(`[data-testid=work-brief][data-brief-id="${brief.id}"]`)).toBeVisible();
  await expect(work.getByTestId('work-not-configured')).toHaveCount(0);
});
