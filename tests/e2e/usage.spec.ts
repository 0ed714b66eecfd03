import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { wallClock } from '../../shared/usage-text';
import { FAKE_RUNTIME, openView, pairThroughEmulator, pendingCode, startStack, type Stack } from './stack';

// The usage meters and the deferral in the window, over the real headless host and the
// emulator. codex is the scripted app-server stub: its turn reports the plan's primary
// window at 98.2 % used with a reset 2 h 14 min ahead, so after one unit the runner defers.

const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));

test.describe.configure({ mode: 'serial' });

let stack: Stack;
const resetsAt = (Math.floor(Date.now() / 60_000) + 2 * 60 + 14) * 60_000;

test.beforeAll(async () => {
  stack = await startStack({
    args: ['--runtime', 'codex'],
    env: {
      RUNNER_TRAY_CLAUDE_BIN: FAKE_RUNTIME,
      RUNNER_TRAY_CODEX_BIN: APP_SERVER_STUB,
      // The host passes its turns only allowlisted variables: CODEX_* reach the app-server.
      CODEX_STUB_SCENARIO: JSON.stringify({
        answer: 'codex done',
        rateLimits: {
          limitId: 'codex',
          primary: { usedPercent: 98.2, windowDurationMins: 300, resetsAt: resetsAt / 1000 },
          secondary: { usedPercent: 41, windowDurationMins: 10080, resetsAt: resetsAt / 1000 + 3 * 86_400 },
        },
      }),
    },
  });
});

test.afterAll(async () => {
  await stack?.stop();
});

test('a codex turn through the app-server fills the meters; at 1.8 % left the runner defers and claims nothing', async ({ page }) => {
  await pairThroughEmulator(page, stack);
  await page.getByRole('button', { name: 'Go to the dashboard' }).click();
  await expect(page.getByTestId('usage-empty')).toBeVisible();

  const first = stack.emu.admin.enqueueTurnExecution({ brain: 'codex', prompt: 'Fix the export test' });
  await stack.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === first.id, { timeoutMs: 20_000, since: 0 });
  const [result] = stack.emu.admin.listResults({ unit_id: first.id });
  expect(result).toMatchObject({ status: 'succeeded', runtime: 'codex-cli', summary: 'codex done' });

  const card = page.getByTestId('usage-account-codex:default');
  await expect(card).toBeVisible({ timeout: 10_000 });
  // The countdown may tick over a minute while the test runs; the instant it names does not.
  await expect(card.getByTestId('usage-window-primary')).toContainText(new RegExp(`98\\.2 % used · resets in 2 h 1[34] min \\(at ${wallClock(resetsAt)}\\)`));
  await expect(card.getByTestId('usage-window-primary')).toContainText('5-hour');
  await expect(card.getByTestId('usage-window-secondary')).toContainText('Weekly');
  await expect(card.getByTestId('usage-window-secondary')).toContainText('41 % used');
  await expect(card.getByTestId('usage-admission')).toHaveText(`deferred: 1.8 % left, resumes at ${wallClock(resetsAt)}`);
  await expect(card.getByTestId('usage-admission')).toHaveAttribute('title', /is at or below the 2% reserve/);
  await expect(card.getByTestId('usage-today')).toContainText('1 turn');
  // codex reports no cost: its tokens count, its cost is unknown (never $0).
  await expect(card.getByTestId('usage-today')).toContainText('cost unknown');
  await expect(card.getByTestId('usage-today')).not.toContainText('$0');
  await expect(page.getByTestId('status-reason')).toHaveText(`Not claiming: Codex · default has 1.8 % left, resumes at ${wallClock(resetsAt)}.`);
  await expect(card.locator('meter').first()).toHaveAttribute('aria-label', /98\.2 % used, resets in 2 h 1[34] min/);

  // Deferred: a new unit is not claimed, though heartbeats go on.
  const second = stack.emu.admin.enqueueTurnExecution({ brain: 'codex', prompt: 'Another change' });
  let beats = 0;
  await stack.emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && ++beats === 2, { timeoutMs: 10_000 });
  expect(stack.emu.admin.listUnits({}).find((u) => u.id === second.id)?.status).toBe('queued');
  const heartbeat = stack.emu.admin.listHeartbeats({ limit: 1 })[0];
  expect(heartbeat?.model_account_state).toMatch(/^reserve reached until /);
});

test('the reserve is a setting: lowering it to 1 % lets the runner claim again', async ({ page }) => {
  await stack.host.open(page, '#settings');
  await expect(page.getByTestId('view-settings')).toBeVisible();
  await page.getByTestId('setting-usageReservePercent').fill('1');
  await page.getByTestId('settings-save').click();
  await openView(page, 'dashboard');
  await expect(page.getByTestId('usage-account-codex:default').getByTestId('usage-admission')).toHaveText('claiming', { timeout: 10_000 });
  const queued = stack.emu.admin.listUnits({}).find((u) => u.status === 'queued');
  if (queued) await stack.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === queued.id, { timeoutMs: 20_000, since: 0 });
});

test.describe('screenshot', () => {
  test.skip(!process.env.RUNNER_TRAY_SCREENSHOTS, 'screenshots are taken on demand: RUNNER_TRAY_SCREENSHOTS=1');

  test('the meters with a deferred codex account and a claude account, light and dark', async ({ browser }) => {
    // A data folder with a day of usage, as the runner writes it (usage/accounts.json).
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-usage-shot-'));
    const now = Date.now();
    const reset = (Math.floor(now / 60_000) + 2 * 60 + 14) * 60_000;
    const history = Array.from({ length: 48 }, (_, i): [number, number] => [now - (47 - i) * 30 * 60_000, Math.min(98.2, 22 + i * 1.6 + (i % 5) * 1.5)]);
    const turns = (n: number, input: number, output: number, cost: number | null) =>
      Array.from({ length: n }, (_, i): [number, number, number, number | null] => [now - i * 40 * 60_000, input, output, cost]);
    mkdirSync(path.join(dataDir, 'usage'), { recursive: true });
    writeFileSync(
      path.join(dataDir, 'usage', 'accounts.json'),
      JSON.stringify({
        version: 1,
        accounts: {
          'codex:default': {
            runtime: 'codex',
            alias: 'default',
            windows: {
              primary: { usedPercent: 98.2, windowMinutes: 300, resetsAt: reset },
              secondary: { usedPercent: 41, windowMinutes: 10080, resetsAt: reset + 3 * 86_400_000 },
            },
            observedAt: now,
            limited: null,
            probedAt: null,
            turns: turns(14, 48_200, 6_900, null),
            history,
          },
          'claude:default': {
            runtime: 'claude',
            alias: 'default',
            windows: { primary: null, secondary: null },
            observedAt: null,
            limited: null,
            probedAt: null,
            turns: turns(9, 31_000, 4_200, 0.38),
            history: [],
          },
        },
      }),
    );
    const shot = await startStack({ args: ['--runtime', 'codex', '--name', 'studio-mac', '--data-dir', dataDir], runtime: FAKE_RUNTIME });
    try {
      shot.emu.admin.approvePairing(await pendingCode(shot.emu));
      await shot.emu.admin.waitForEvent('runner.heartbeat', { timeoutMs: 15_000 });
      for (const scheme of ['light', 'dark'] as const) {
        const context = await browser.newContext({ viewport: { width: 900, height: 640 }, colorScheme: scheme, deviceScaleFactor: 1 });
        const p = await context.newPage();
        await p.goto(`${shot.host.url}#dashboard`);
        await expect(p.getByTestId('fig-heartbeat')).toContainText(/ago/, { timeout: 10_000 });
        await expect(p.getByTestId('usage-account-codex:default').getByTestId('usage-admission')).toContainText('deferred: 1.8 % left');
        await p.getByTestId('usage-card').scrollIntoViewIfNeeded();
        await p.screenshot({ path: `docs/screenshots/usage-meters-${scheme}.png`, caret: 'hide' });
        await context.close();
      }
    } finally {
      await shot.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
