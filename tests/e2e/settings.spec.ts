import { expect, test } from '@playwright/test';
import { openView, startStack, type Stack } from './stack';

test.describe.configure({ mode: 'serial' });

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack();
});

test.afterAll(async () => {
  await stack?.stop();
});

test('every setting, checked inline with the core messages, saved together', async ({ page }) => {
  await stack.host.open(page, '#settings');
  const field = (key: string) => page.getByTestId(`setting-${key}`);
  const error = (key: string) => page.getByTestId(`error-${key}`);
  const save = page.getByTestId('settings-save');

  // The one setting given by a flag is shown read-only, with where it comes from.
  await expect(field('controlPlaneUrl')).toHaveValue(stack.emu.url);
  await expect(field('controlPlaneUrl')).toHaveAttribute('readonly', '');
  await expect(page.getByTestId('override-controlPlaneUrl')).toHaveText('Set by --control-plane when the host started; change it there.');
  await expect(save).toBeDisabled();

  // Inline messages are the shared schema's, word for word.
  await field('runnerName').fill('');
  await expect(error('runnerName')).toHaveText('Runner name must be 1–100 characters.');
  await expect(field('runnerName')).toHaveAttribute('aria-invalid', 'true');
  await field('heartbeatMs').fill('500');
  await expect(error('heartbeatMs')).toHaveText('Heartbeat interval (ms) must be an integer >= 1000.');
  await expect(page.getByTestId('settings-status')).toHaveText('Fix 2 fields marked above to save.');
  await expect(save).toBeDisabled();

  await field('runnerName').fill('renamed-runner');
  await field('heartbeatMs').fill('2000');
  await field('notifications').uncheck();
  await expect(page.getByTestId('settings-status')).toHaveText('3 unsaved changes.');
  await save.click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');

  await page.reload();
  await expect(field('runnerName')).toHaveValue('renamed-runner');
  await expect(field('heartbeatMs')).toHaveValue('2000');
  await expect(field('notifications')).not.toBeChecked();
  await expect(page.getByTestId('settings-status')).toHaveText('All changes saved.');
});

test('what a turn can reach: extra variable names are checked, and using my own agent settings warns', async ({ page }) => {
  await stack.host.open(page, '#settings');
  const field = (key: string) => page.getByTestId(`setting-${key}`);
  await field('runtimeEnvAllow').fill('AWS_PROFILE, RUNNER_NAME');
  await expect(page.getByTestId('error-runtimeEnvAllow')).toContainText("none of the runner's own");
  await field('runtimeEnvAllow').fill('AWS_PROFILE, MY_*');
  await expect(page.getByTestId('error-runtimeEnvAllow')).toHaveCount(0);
  await expect(page.getByTestId('warning-useOwnAgentConfig')).toHaveCount(0);
  await field('useOwnAgentConfig').check();
  await expect(page.getByTestId('warning-useOwnAgentConfig')).toContainText('your personal MCP servers, hooks and instructions');
  await page.getByTestId('settings-save').click();
  // Widening what a turn can reach is confirmed in the window: cancel first keeps it unsaved.
  const dialog = page.getByRole('dialog', { name: 'Let turns reach more of this computer?' });
  await expect(dialog.getByTestId('widening-message')).toContainText('Use my own claude/codex settings');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('settings-status')).toHaveText('2 unsaved changes.');
  await page.getByTestId('settings-save').click();
  await dialog.getByRole('button', { name: 'Turn it on' }).click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');
  await openView(page, 'dashboard');
  await expect(page.getByTestId('own-config-warning')).toBeVisible();
  await expect(page.getByTestId('widening-warning')).toContainText('Use my own claude/codex settings, Extra environment variables for runtimes');
  await openView(page, 'settings');
  await field('useOwnAgentConfig').uncheck();
  await field('runtimeEnvAllow').fill('');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');
});

test("a turn's network: the allowlist by default; a bad host is refused; sharing the host's network and extra hosts are confirmed widenings", async ({
  page,
}) => {
  await stack.host.open(page, '#settings');
  const field = (key: string) => page.getByTestId(`setting-${key}`);
  await expect(field('turnNetwork')).toHaveValue('allowlist');
  await expect(page.getByTestId('warning-turnNetwork')).toHaveCount(0);
  await field('turnEgressHosts').fill('https://pypi.org/simple');
  await expect(page.getByTestId('error-turnEgressHosts')).toContainText('no scheme, path or wildcard');
  await field('turnEgressHosts').fill('pypi.org, registry.npmjs.org:443');
  await expect(page.getByTestId('error-turnEgressHosts')).toHaveCount(0);
  await field('turnNetwork').selectOption('shared');
  await expect(page.getByTestId('warning-turnNetwork')).toContainText('every loopback service, the session bus');
  await page.getByTestId('settings-save').click();
  const dialog = page.getByRole('dialog', { name: 'Let turns reach more of this computer?' });
  await expect(dialog.getByTestId('widening-message')).toContainText('Turn network');
  await expect(dialog.getByTestId('widening-message')).toContainText('Extra hosts turns may reach');
  await dialog.getByRole('button', { name: 'Turn it on' }).click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');
  await openView(page, 'dashboard');
  await expect(page.getByTestId('widening-warning')).toContainText('Turn network, Extra hosts turns may reach');
  // Back to the allowlist, with no extra host: narrowing needs no confirmation.
  await openView(page, 'settings');
  await field('turnNetwork').selectOption('allowlist');
  await field('turnEgressHosts').fill('');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('settings-status')).toHaveText('Saved.');
  await openView(page, 'dashboard');
  await expect(page.getByTestId('widening-warning')).toHaveCount(0);
});

test("the host's own error is shown on its field", async ({ page }) => {
  // Change what leaves the page, so the host (not the form) judges a value: its answer
  // names the field, and the window puts the message there.
  await page.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((message) => {
      const frame = JSON.parse(String(message)) as { command: string; input?: Record<string, unknown> };
      if (frame.command === 'settings:update') frame.input = { ...frame.input, maxSessions: 99 };
      server.send(JSON.stringify(frame));
    });
  });
  await stack.host.open(page, '#settings');
  await page.getByTestId('setting-maxSessions').fill('3');
  await page.getByTestId('settings-save').click();
  await expect(page.getByTestId('error-maxSessions')).toHaveText('Maximum sessions must be an integer from 1 to 8.');
  await expect(page.getByTestId('setting-maxSessions')).toHaveAttribute('aria-invalid', 'true');
  // Editing the field clears the host's message.
  await page.getByTestId('setting-maxSessions').fill('2');
  await expect(page.getByTestId('error-maxSessions')).toBeHidden();
});

test('a change made elsewhere reaches an open window (settings:changed)', async ({ page, browser }) => {
  await stack.host.open(page, '#settings');
  await expect(page.getByTestId('setting-modelAccountAlias')).toHaveValue('default');
  const other = await browser.newPage();
  try {
    await stack.host.open(other, '#settings');
    await other.getByTestId('setting-modelAccountAlias').fill('team-pro');
    await other.getByTestId('settings-save').click();
    await expect(other.getByTestId('settings-status')).toHaveText('Saved.');
  } finally {
    await other.close();
  }
  await expect(page.getByTestId('setting-modelAccountAlias')).toHaveValue('team-pro');
});
