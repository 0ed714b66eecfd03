import { expect, test, type Browser, type Page } from '@playwright/test';
import { DEMO_RUNTIME, openView, pendingCode, startStack, type Stack } from './stack';

/**
 * The screenshots in docs/screenshots/, taken from the real window over the real host
 * and emulator: every view, light and dark, at the desktop window's 900×640. On demand
 * only (`node scripts/screenshot.mjs`), never in the normal e2e run.
 */
test.skip(!process.env.RUNNER_TRAY_SCREENSHOTS, 'screenshots are taken on demand: node scripts/screenshot.mjs');
test.setTimeout(240_000);

const SCHEMES = ['light', 'dark'] as const;
const OUT = 'docs/screenshots';
let stack: Stack;

test.beforeAll(async () => {
  stack = await startStack({
    emulator: { seed: 'demo' },
    runtime: DEMO_RUNTIME,
    args: ['--name', 'studio-mac', '--max-sessions', '3', '--heartbeat-ms', '5000'],
    // Codex as found on PATH (the dev dependency): a real version beside the stand-in claude.
    env: { DEMO_RUNTIME_NO_FAIL: '1', RUNNER_TRAY_CODEX_BIN: '' },
  });
});

test.afterAll(async () => {
  await stack?.stop();
});

async function pageFor(browser: Browser, scheme: 'light' | 'dark', hash: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 900, height: 640 }, colorScheme: scheme, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await stack.host.open(page, `#${hash}`);
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  return page;
}

async function shoot(page: Page, name: string, scheme: string): Promise<void> {
  // Let charts and tickers settle (the caret is hidden by Playwright's default).
  await page.waitForTimeout(600);
  await page.screenshot({ path: `${OUT}/${name}-${scheme}.png`, caret: 'hide' });
}

test('screenshots of every view, light and dark', async ({ browser }) => {
  // 1. Pairing, waiting for approval.
  await pendingCode(stack.emu);
  for (const scheme of SCHEMES) {
    const page = await pageFor(browser, scheme, 'pairing');
    await expect(page.getByTestId('user-code')).toBeVisible();
    await shoot(page, 'pairing-waiting', scheme);
    await page.context().close();
  }

  // 2. Approve; let some work run so every view has real data.
  stack.emu.admin.approvePairing(await pendingCode(stack.emu));
  const requests = stack.emu.admin.listBuildRequests();
  const request = requests.find((r) => r.status === 'in_progress') ?? requests[0];
  const seats = [
    { id: '7a1d3c52-3f0e-4f4b-9a57-0f3b8c2d9e11', name: 'Builder' },
    { id: 'c2b9f0a4-8d4e-4a8e-b1f5-6e2d7c9a3b20', name: 'Reviewer' },
  ];
  const enqueue = (prompt: string, seat: (typeof seats)[number]) =>
    stack.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt, seat, ...(request ? { build_request_id: request.id } : {}) });
  const page = await pageFor(browser, 'light', 'turns');
  for (const [i, prompt] of ['demo:ms=1500', 'demo:ms=2500 demo:fail', 'demo:ms=1200', 'demo:ms=1800'].entries()) {
    enqueue(`Check the export tests ${prompt}`, seats[i % 2]!);
    await expect(page.getByTestId('history-row')).toHaveCount(i + 1, { timeout: 20_000 });
  }
  enqueue('Review the multi-currency fix demo:ms=600000', seats[1]!);
  enqueue('Draft the release note demo:ms=600000', seats[0]!);
  await expect(page.getByTestId('active-turn')).toHaveCount(2, { timeout: 20_000 });
  // Charts want a few minutes of samples; a minute is what a demo can spare.
  await page.waitForTimeout(45_000);
  await page.context().close();

  // 3. Every view in both schemes.
  for (const scheme of SCHEMES) {
    const p = await pageFor(browser, scheme, 'dashboard');
    await expect(p.getByTestId('fig-sessions')).toContainText('2 / 3');
    await shoot(p, 'dashboard', scheme);

    await openView(p, 'turns');
    await p.getByTestId('active-turn').first().click();
    await expect(p.getByTestId('output-tail')).not.toHaveText('No output yet.');
    await shoot(p, 'turns', scheme);

    await p.getByTestId('pause-menu').click();
    await shoot(p, 'pause-menu', scheme);
    await p.keyboard.press('Escape');

    await openView(p, 'pairing');
    await shoot(p, 'pairing-paired', scheme);

    await openView(p, 'activity');
    await shoot(p, 'activity', scheme);

    await openView(p, 'settings');
    await p.getByTestId('setting-interactiveClaimMs').fill('100');
    await shoot(p, 'settings', scheme);

    await openView(p, 'turns');
    await p.getByTestId('cancel-turn').click();
    await shoot(p, 'cancel-dialog', scheme);
    await p.keyboard.press('Escape');
    await p.context().close();
  }
});
