import { expect, test } from '@playwright/test';
import { openView, pairThroughEmulator, startStack, type Stack } from './stack';

// One stack per file, and the tests build on each other: after a failure, skip the rest.
test.describe.configure({ mode: 'serial' });

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack({ args: ['--max-sessions', '2'] });
});

test.afterAll(async () => {
  await stack?.stop();
});

test('a turn appears live, shows its output, and can be canceled after one question', async ({ page }) => {
  await pairThroughEmulator(page, stack);
  await openView(page, 'turns');
  await expect(page.getByTestId('active-empty')).toContainText('Nothing running');
  await expect(page.getByTestId('history-empty')).toBeVisible();

  const unit = stack.emu.admin.enqueueTurnExecution({
    brain: 'claude',
    prompt: 'fake:sleep',
    seat: { id: 'seat-1', name: 'Builder' },
    build_request_id: 'br-42',
  });
  const row = page.getByTestId('active-turn');
  await expect(row).toHaveCount(1, { timeout: 10_000 });
  await expect(row).toContainText('Builder');
  await expect(row).toContainText('Claude Code');
  await expect(row).toContainText('request br-42');
  await expect(row).toContainText('Running');
  await expect(page.getByTestId('tab-turns')).toContainText('1');
  await expect(page.getByTestId('status-line')).toHaveText('Working 1 of 2');

  // The first running turn is shown in detail: its live output (text, redacted) and elapsed time.
  await expect(page.getByTestId('output-tail')).toHaveText(/working\.\.\./, { timeout: 10_000 });
  const elapsed = row.getByTestId('turn-elapsed');
  const before = await elapsed.textContent();
  await expect(elapsed).not.toHaveText(before ?? '', { timeout: 3000 });

  // Cancel asks once; "Keep running" leaves it alone.
  await page.getByTestId('cancel-turn').click();
  const dialog = page.getByRole('dialog', { name: 'Cancel this turn?' });
  await expect(dialog).toContainText('Builder');
  await dialog.getByRole('button', { name: 'Keep running' }).click();
  await expect(row).toHaveCount(1);
  await page.getByTestId('cancel-turn').click();
  await dialog.getByRole('button', { name: 'Cancel turn' }).click();
  await expect(row).toHaveCount(0, { timeout: 10_000 });
  const canceled = page.getByTestId('history-row').first();
  await expect(canceled).toContainText('Canceled');
  await expect(page.getByTestId('detail-phase')).toHaveText('Canceled');
  await expect(page.getByTestId('detail-reason')).toContainText('canceled by the operator');
  await expect.poll(() => stack.emu.admin.listResults({ unit_id: unit.id }).map((r) => r.status)).toEqual(['canceled']);
});

test('a turn that succeeds lands in history with its outcome, duration and summary', async ({ page }) => {
  await stack.host.open(page, '#turns');
  stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:all-tests-green', seat: { id: 'seat-2', name: 'Reviewer' } });
  const first = page.getByTestId('history-row').first();
  await expect(first).toContainText('Succeeded', { timeout: 10_000 });
  await expect(first).toContainText('Reviewer');
  await expect(first).toContainText('all-tests-green');
  await first.click();
  await expect(page.getByTestId('detail-phase')).toHaveText('Succeeded');
  await expect(page.getByTestId('detail-summary')).toContainText('all-tests-green');
  await expect(page.getByTestId('turn-detail')).toContainText(/\d+ in · 7 out/);
  // Keyboard: the history list moves with the arrow keys.
  await page.getByTestId('turn-history').focus();
  await page.keyboard.press('End');
  await expect(page.getByTestId('detail-phase')).toHaveText('Canceled');
  await page.keyboard.press('Home');
  await expect(page.getByTestId('detail-phase')).toHaveText('Succeeded');
});
