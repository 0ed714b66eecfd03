import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openView, pairThroughEmulator, startStack, type Stack } from './stack';

/**
 * A running turn's transcript streams into the Turns view as the runtime prints it:
 * claude's stream-json messages and the codex app-server's item deltas. The stand-ins print
 * `step <i> printed-at=<epoch ms>` lines and then never end on their own, so every line the
 * test sees arrived while the turn was running. When each line first showed is measured in
 * the page (a MutationObserver); the delays are reported (annotations, and the JSON file
 * RUNNER_TRAY_LIVE_LATENCY_OUT names, which the bench reads), never asserted as wall clock.
 */
test.describe.configure({ mode: 'serial' });

const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));
let stack: Stack;
const delays: Record<string, number[]> = {};

test.beforeAll(async () => {
  stack = await startStack({
    args: ['--max-sessions', '2'],
    env: { RUNNER_TRAY_CODEX_BIN: APP_SERVER_STUB, CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'live' }) },
  });
});

test.afterAll(async () => {
  await stack?.stop();
  const out = process.env.RUNNER_TRAY_LIVE_LATENCY_OUT;
  if (out) writeFileSync(out, JSON.stringify(delays));
});

/** Records when each `printed-at` line first appears in the page, on the page's clock (the same machine's). */
async function watchLines(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: Record<string, number> = {};
    (window as unknown as { __lineSeen: Record<string, number> }).__lineSeen = seen;
    const check = () => {
      for (const el of document.querySelectorAll('[data-testid="transcript-line"]')) {
        const match = /printed-at=(\d+)/.exec(el.textContent ?? '');
        if (match && !(match[0] in seen)) seen[match[0]] = performance.timeOrigin + performance.now() - Number(match[1]);
      }
    };
    new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
  });
}

async function report(page: Page, testInfo: TestInfo, runtime: string): Promise<void> {
  const seen = await page.evaluate(() => (window as unknown as { __lineSeen: Record<string, number> }).__lineSeen);
  const values = Object.values(seen).map((ms) => Math.round(ms));
  delays[runtime] = values;
  testInfo.annotations.push({ type: 'printed → on screen (ms)', description: `${runtime}: ${values.join(', ')}` });
}

async function streamsLive(page: Page, testInfo: TestInfo, brain: 'claude' | 'codex', lastLine: RegExp): Promise<void> {
  await page.goto('about:blank');
  await watchLines(page);
  await stack.host.open(page, '#turns');
  await openView(page, 'turns');
  stack.emu.admin.enqueueTurnExecution({ brain, prompt: 'fake:live', seat: { id: `seat-${brain}`, name: `Live ${brain}` } });
  const row = page.getByTestId('active-turn').filter({ hasText: `Live ${brain}` });
  await expect(row).toHaveCount(1, { timeout: 15_000 });
  await row.click();
  const transcript = page.getByTestId('transcript');
  for (let step = 1; step <= 5; step++) await expect(transcript).toContainText(`step ${step} printed-at=`, { timeout: 15_000 });
  const command = transcript.locator('[data-kind="command"]').first();
  await expect(command).toHaveText('$ npm test', { timeout: 15_000 });
  await expect(transcript).toContainText(lastLine);
  // Commands are monospace; the model's text is not.
  expect(await command.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
  expect(
    await transcript
      .locator('[data-kind="text"]')
      .first()
      .evaluate((el) => getComputedStyle(el).fontFamily),
  ).not.toMatch(/mono/i);
  await expect(page.getByTestId('detail-phase')).toHaveText('Running');
  await report(page, testInfo, brain);
  if (process.env.RUNNER_TRAY_SCREENSHOTS)
    await page.screenshot({ path: `docs/screenshots/live-transcript-${brain}.png`, caret: 'hide', animations: 'disabled' });

  // Canceled, the turn keeps what it streamed.
  await page.getByTestId('cancel-turn').click();
  await page.getByRole('dialog', { name: 'Cancel this turn?' }).getByRole('button', { name: 'Cancel turn' }).click();
  await expect(page.getByTestId('detail-phase')).toHaveText('Canceled', { timeout: 15_000 });
  await expect(page.getByTestId('transcript')).toContainText('step 5 printed-at=');
  await expect(page.getByTestId('transcript')).toContainText('$ npm test');
}

test('claude stream-json: messages and commands show as the runtime prints them, and a canceled turn keeps them', async ({ page }, testInfo) => {
  await pairThroughEmulator(page, stack);
  await streamsLive(page, testInfo, 'claude', /\$ npm test/);
});

test('codex app-server deltas: the answer streams line by line, the command with its output and exit code', async ({ page }, testInfo) => {
  await streamsLive(page, testInfo, 'codex', /exit 0/);
  await expect(page.getByTestId('transcript')).toContainText('ok 1 - exports');
});
