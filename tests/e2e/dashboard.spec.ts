import { expect, test, type Page } from '@playwright/test';
import { pairThroughEmulator, startStack, type Stack } from './stack';

// One stack per file, and the tests build on each other: after a failure, skip the rest.
test.describe.configure({ mode: 'serial' });

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack();
});

test.afterAll(async () => {
  await stack?.stop();
});

/** "Paused by you at HH:MM · resumes HH:MM" as statusLine() writes it, for a pause of `minutes` from now. */
function untilText(minutes: number, from = Date.now()): RegExp {
  const clock = (ms: number) => {
    const d = new Date(ms);
    return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  };
  // The minute may roll over between the click and this line.
  return new RegExp(`^Paused by you at \\d\\d:\\d\\d · resumes (${clock(from + minutes * 60_000)}|${clock(from + minutes * 60_000 + 60_000)})$`);
}

async function resume(page: Page) {
  await page.getByTestId('resume').click();
  await expect(page.getByTestId('status-line')).toHaveText('Idle');
  await expect(page.getByTestId('pause')).toBeVisible();
}

test('live figures, runtimes and charts for a paired runner', async ({ page }) => {
  await pairThroughEmulator(page, stack);
  await page.getByRole('button', { name: 'Go to the dashboard' }).click();
  await expect(page.getByTestId('view-dashboard')).toBeVisible();
  await expect(page.getByTestId('fig-sessions')).toContainText('0 / 1');
  await expect(page.getByTestId('fig-cpu')).toContainText(/\d+ %/);
  await expect(page.getByTestId('fig-memory')).toContainText(/\d+ %/);
  await expect(page.getByTestId('fig-heartbeat')).toContainText(/\d+ s ago/, { timeout: 10_000 });
  await expect(page.getByTestId('fig-account')).toContainText('default');
  await expect(page.getByTestId('runtimes')).toContainText('Claude Code');
  await expect(page.getByTestId('runtimes')).toContainText('installed');
  // How its turns are isolated: the strongest level this machine has (bubblewrap on CI).
  const bwrapHere = process.platform === 'linux' && (await import('node:child_process')).spawnSync('sh', ['-c', 'command -v bwrap']).status === 0;
  await expect(page.getByTestId('runtime-isolation').first()).toContainText(bwrapHere ? 'sandboxed (bubblewrap)' : 'environment only');
  await page.getByTestId('runtimes-refresh').click();
  await expect(page.getByTestId('runtimes-refresh')).toHaveText('Refresh');
  // Three small charts, each one canvas, labelled for screen readers with the latest value.
  for (const chart of ['chart-cpu', 'chart-memory', 'chart-sessions']) {
    await expect(page.getByTestId(chart).locator('canvas')).toHaveCount(1);
  }
  await expect(page.getByTestId('chart-sessions')).toHaveAttribute('aria-label', /now 0 of 1/);
  // A new sample goes into the same chart (no new canvas, no rebuild).
  const canvas = await page.getByTestId('chart-cpu').locator('canvas').elementHandle();
  const label = await page.getByTestId('chart-cpu').getAttribute('aria-label');
  await expect(page.getByTestId('chart-cpu')).not.toHaveAttribute('aria-label', label ?? '', { timeout: 12_000 });
  expect(await canvas?.evaluate((el) => el.isConnected)).toBe(true);
});

test('pause and resume in one click; pause for 30 min, 1 h, or a custom time', async ({ page }) => {
  await stack.host.open(page, '#dashboard');
  await expect(page.getByTestId('status-line')).toHaveText('Idle');

  await page.getByTestId('pause').click();
  await expect(page.getByTestId('status-line')).toHaveText(/^Paused by you at \d\d:\d\d$/);
  await expect(page.getByTestId('status-reason')).toHaveText('Not taking new work.');
  await resume(page);

  await page.getByTestId('pause-menu').click();
  await page.getByRole('menuitem', { name: 'Pause for 30 minutes' }).click();
  await expect(page.getByTestId('status-line')).toHaveText(untilText(30));
  await resume(page);

  // By keyboard: ArrowDown opens the menu, arrows move, Enter picks.
  await page.getByTestId('pause-menu').focus();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('menuitem', { name: 'Pause for 30 minutes' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(page.getByRole('menuitem', { name: 'Pause for 1 hour' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('status-line')).toHaveText(untilText(60));
  await resume(page);

  // Escape closes the menu and gives focus back.
  await page.getByTestId('pause-menu').click();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('menu')).toBeHidden();
  await expect(page.getByTestId('pause-menu')).toBeFocused();

  // A custom number of minutes, checked before it is sent.
  await page.getByTestId('pause-menu').click();
  await page.getByRole('menuitem', { name: 'Pause for…' }).click();
  const minutes = page.getByRole('spinbutton', { name: 'Minutes' });
  await minutes.fill('0');
  await expect(page.getByText('Minutes must be a whole number from 1 to 10080.')).toBeVisible();
  await expect(page.getByTestId('pause-custom-submit')).toBeDisabled();
  await minutes.fill('90');
  await page.getByTestId('pause-custom-submit').click();
  await expect(page.getByTestId('status-line')).toHaveText(untilText(90));

  await openTurnsAndCheckPausedEmpty(page);
  await resume(page);
});

async function openTurnsAndCheckPausedEmpty(page: Page) {
  await page.getByTestId('tab-turns').click();
  await expect(page.getByTestId('active-empty')).toContainText('Paused: no new turns start');
}
