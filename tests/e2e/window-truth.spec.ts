import { expect, test, type Page } from '@playwright/test';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHeadlessHost, type RunningHost } from './headless-host';
import { FAKE_RUNTIME, openView, pairThroughEmulator, startStack, type Stack } from './stack';

/** The window tells the truth: about its own link to the host, the control plane, and what it shows. */
test.describe.configure({ mode: 'serial' });

let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack();
});

test.afterAll(async () => {
  await stack?.stop();
});

const favicon = (page: Page) => page.locator('link[rel="icon"]');

/** Processes running the fake runtime in a turn folder under `dataDir` (this host's turns only), from /proc. */
function runtimesAlive(dataDir: string): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(path.basename(FAKE_RUNTIME))) continue;
      if (readlinkSync(`/proc/${pid}/cwd`).includes(path.basename(dataDir))) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

test('the tab title and favicon follow the status; focus moves from Pause to Resume and back', async ({ page }) => {
  await pairThroughEmulator(page, stack);
  await page.getByRole('button', { name: 'Go to the dashboard' }).click();
  await expect(page.getByTestId('status-line')).toHaveText('Idle');
  await expect(page).toHaveTitle('Idle · Runner Tray');
  await expect(favicon(page)).toHaveAttribute('data-state', 'idle');
  // The chip says which link it is about: this window and the host, not the control plane.
  await expect(page.getByRole('status', { name: 'This window and the host: Connected' })).toContainText('Window ↔ host');

  await page.getByTestId('pause').click();
  await expect(page.getByTestId('status-line')).toHaveText(/^Paused by you at /);
  await expect(page.getByTestId('resume')).toBeFocused();
  // A tab in the background says so in its title and icon.
  const other = await page.context().newPage();
  try {
    await expect(page).toHaveTitle('Paused · Runner Tray');
    await expect(favicon(page)).toHaveAttribute('data-state', 'paused');
  } finally {
    await other.close();
  }
  await page.getByTestId('resume').click();
  await expect(page.getByTestId('status-line')).toHaveText('Idle');
  await expect(page.getByTestId('pause')).toBeFocused();
  await expect(page).toHaveTitle('Idle · Runner Tray');
});

test('running turns stay in the header when the control plane answers nonsense, in words that match the fault', async ({ page }) => {
  await stack.host.open(page, '#turns');
  const unit = stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep', seat: { id: 'seat-t', name: 'Truth' } });
  await expect(page.getByTestId('active-turn')).toHaveCount(1, { timeout: 10_000 });
  await expect(page.getByTestId('status-line')).toHaveText('Working 1 of 1');

  stack.emu.admin.addFault({ route: '/api/runner/heartbeat', malformed: { rate: 1, kind: 'invalid_json' } });
  await expect(page.getByTestId('status-line')).toHaveText('Working 1 of 1 · the control plane answers nonsense', { timeout: 15_000 });
  await expect(page.getByTestId('status-reason')).toContainText('do not fit the protocol');
  stack.emu.admin.clearFaults();
  stack.emu.admin.addFault({ route: '/api/runner/heartbeat', error: { rate: 1, status: 503 } });
  await expect(page.getByTestId('status-line')).toHaveText('Working 1 of 1 · the control plane is failing (server error)', { timeout: 15_000 });
  stack.emu.admin.clearFaults();
  await expect(page.getByTestId('status-line')).toHaveText('Working 1 of 1', { timeout: 15_000 });

  // After a cancel, the keyboard is on the canceled turn's row, and follows it into History.
  await page.getByTestId('cancel-turn').click();
  await page.getByRole('dialog', { name: 'Cancel this turn?' }).getByRole('button', { name: 'Cancel turn' }).click();
  await expect(page.getByTestId('history-row').first()).toContainText('Canceled', { timeout: 10_000 });
  await expect(page.getByTestId('turn-history')).toBeFocused();
  await expect(page.getByTestId('turn-history')).toHaveAttribute('aria-activedescendant', /.+/);
  await expect.poll(() => stack.emu.admin.listResults({ unit_id: unit.id }).map((r) => r.status)).toEqual(['canceled']);
});

test('a long summary is shown whole in the turn detail, which scrolls, instead of being cut in a small box', async ({ page }) => {
  await stack.host.open(page, '#turns');
  const long = `summary-start-${'abcdefghij'.repeat(120)}-summary-end`;
  stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: `fake:json result:${long}`, seat: { id: 'seat-long', name: 'Long' } });
  const first = page.getByTestId('history-row').first();
  await expect(first).toContainText('Long', { timeout: 10_000 });
  await first.click();
  const summary = page.getByTestId('detail-summary');
  await expect(summary).toContainText('-summary-end');
  const box = await summary.evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight, maxHeight: getComputedStyle(el).maxHeight }));
  expect(box.maxHeight).toBe('none');
  expect(box.scroll).toBeLessThanOrEqual(box.client + 1);
});

test('Settings says which secret store is really in use, not only which one is chosen', async ({ page }) => {
  await stack.host.open(page, '#settings');
  // The host was started with --allow-file-secret-store and no keychain answers here.
  await expect(page.getByTestId('setting-secretBackend')).toHaveValue('keychain');
  await expect(page.getByTestId('secret-store-in-use')).toContainText('In use now: an owner-only file in the data folder');
  await expect(page.getByTestId('secret-store-in-use')).toContainText('the keychain is chosen, but did not work');
});

test('a disabled destructive button does not look armed', async ({ page }) => {
  // Styles come from the built renderer: read them off a danger button in the real page.
  await stack.host.open(page, '#turns');
  const colours = await page.evaluate(() => {
    const button = document.createElement('button');
    button.className = 'button button-danger';
    document.body.appendChild(button);
    const live = getComputedStyle(button).color;
    button.disabled = true;
    const disabled = getComputedStyle(button).color;
    const cursor = getComputedStyle(button).cursor;
    button.remove();
    return { live, disabled, cursor };
  });
  expect(colours.disabled).not.toBe(colours.live);
  expect(colours.cursor).toBe('not-allowed');
});

test.describe('a tab whose host restarted', () => {
  let emu: RunningEmulator;
  let dataDir: string;
  let first: RunningHost | null = null;
  let second: RunningHost | null = null;

  test.beforeAll(async () => {
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, leaseHeartbeatMs: 500, longPollMaxMs: 2000 } });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-restart-'));
  });

  test.afterAll(async () => {
    await second?.stop();
    await first?.stop();
    await emu?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('greys out what it shows, stops its clocks and says to open the new address', async ({ page }) => {
    const args = ['--control-plane', emu.url, '--allow-file-secret-store'];
    const env = { RUNNER_TRAY_CLAUDE_BIN: FAKE_RUNTIME, RUNNER_TRAY_CODEX_BIN: FAKE_RUNTIME };
    first = await startHeadlessHost(args, env, { dataDir });
    // The page's clock is Playwright's: time flows as usual, and can be moved on at will below.
    await page.clock.install();
    await pairThroughEmulator(page, { emu, host: first, stop: async () => undefined });
    await page.getByRole('button', { name: 'Go to the dashboard' }).click();
    await openView(page, 'turns');
    emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep', seat: { id: 'seat-r', name: 'Restarted' } });
    const row = page.getByTestId('active-turn');
    await expect(row).toContainText('Running', { timeout: 10_000 });
    await expect(page.locator('.app')).not.toHaveAttribute('data-stale', 'true');

    // The host dies with the turn running (a clean stop would let the window see the turn
    // end first), then starts again on the same port and data folder: it has a new launch
    // token and knows nothing of this tab's session.
    first.child.kill('SIGKILL');
    await first.exited;
    await expect(page.getByTestId('connection-state')).toHaveText(/Reconnecting|Disconnected/);
    // The crashed host's runtime is stopped by its parent-death watch within its grace
    // period; the new host starts once it is gone (see the closing note of this change:
    // a host started while that stop is still under way is itself signaled).
    await expect.poll(() => runtimesAlive(dataDir), { timeout: 10_000 }).toBe(0);
    second = await startHeadlessHost(['--port', String(first.port), ...args], env, { dataDir });
    const banner = page.getByTestId('connection-banner');
    await expect(banner).toContainText('This host restarted. Open the new address printed in its terminal.', { timeout: 20_000 });
    await expect(banner).toContainText('may no longer be true');
    await expect(page.getByTestId('connection-state')).toHaveText('Disconnected');
    await expect(page.locator('.app')).toHaveAttribute('data-stale', 'true');
    await expect(page).toHaveTitle('Host restarted · Runner Tray');
    await expect(favicon(page)).toHaveAttribute('data-state', 'lost');

    // The turn's clock stopped at the moment the host was lost: it does not run on for ever.
    const elapsed = row.getByTestId('turn-elapsed');
    const shown = await elapsed.textContent();
    // Move the page's clock past two tick intervals (1 s): a clock that still ran would change.
    await page.clock.fastForward(2200);
    await expect(elapsed).toHaveText(shown ?? '');

    // The new address opens a live window again.
    await second.open(page, '#turns');
    await expect(page.getByTestId('connection-state')).toHaveText('Connected');
    await expect(page.locator('.app')).not.toHaveAttribute('data-stale', 'true');
  });
});
