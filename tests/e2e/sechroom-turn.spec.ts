import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { gitOrigin, type GitOrigin } from '../integration/git-origin';
import { startHeadlessHost, type RunningHost } from './headless-host';

/**
 * Both planes in one Turns view: the headless host's Rost profile paired with the emulator,
 * and beside it a Sechroom profile from a fleet config against the emulator's Work Layer (the
 * scripted codex app-server, a local bare origin). The Sechroom task's detail shows its
 * verdict and git delivery. RUNNER_TRAY_SCREENSHOTS=1 also writes
 * docs/screenshots/sechroom-turn-light|dark.png.
 */
test.setTimeout(90_000);

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const APP_SERVER_STUB = fileURLToPath(new URL('../stubs/codex-app-server-stub.mjs', import.meta.url));
let emu: RunningEmulator;
let host: RunningHost;
let repo: GitOrigin;

test.afterAll(async () => {
  await host?.stop();
  await emu?.close();
  repo?.cleanup();
});

test('a delivered Sechroom task shows its verdict, branch, commit and delivery note in the turn detail', async ({ browser }) => {
  emu = await startEmulator({});
  repo = gitOrigin();
  const minted = emu.sechroom.mintToken();
  emu.sechroom.createTask({ title: 'Add a CSV writer for invoice exports', objective: 'Export invoices as CSV.' });
  // The Rost profile (paired with the emulator, a stand-in claude) and, beside it, the fleet's Sechroom profile.
  const fleet = path.join(repo.dir, 'fleet.json');
  writeFileSync(fleet, JSON.stringify({ instances: [{ instanceKey: 'codex-a', root: repo.root, pollInterval: 1 }] }));
  host = await startHeadlessHost(['--control-plane', emu.url, '--fleet-config', fleet, '--no-pr', '--allow-file-secret-store'], {
    SECHROOM_BASE_URL: emu.sechroomUrl,
    SECHROOM_TENANT: minted.tenant,
    SECHROOM_TOKEN: minted.access_token,
    CODEX_BIN: APP_SERVER_STUB,
    CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'closeout-on-nudge', writeFile: { name: 'export.csv', text: 'id,total\n' } }),
    RUNNER_TRAY_CLAUDE_BIN: FAKE,
  });
  const pairing = await emu.admin.waitForEvent('pairing.started', { timeoutMs: 10_000, since: 0 });
  emu.admin.approvePairing(String(pairing.data.user_code));
  await emu.admin.waitForEvent('runner.heartbeat', { timeoutMs: 10_000, since: 0 });
  const unit = emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:all-tests-green', seat: { id: 'seat-1', name: 'Builder' } });
  await expect.poll(() => emu.admin.listResults({ unit_id: unit.id }).length, { timeout: 20_000 }).toBe(1);
  for (const scheme of ['light', 'dark'] as const) {
    const context = await browser.newContext({ viewport: { width: 900, height: 640 }, colorScheme: scheme, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await host.open(page, '#turns');
    // Both planes' work in one history.
    await expect(page.getByTestId('history-row')).toHaveCount(2, { timeout: 30_000 });
    await expect(page.getByTestId('turn-history')).toContainText('Builder');
    const row = page.getByTestId('history-row').filter({ hasText: 'Add a CSV writer for invoice exports' });
    await row.click();
    await expect(page.getByTestId('detail-phase')).toHaveText('Succeeded');
    await expect(page.getByTestId('detail-git-branch')).toHaveText(/^task\/mem-[0-9a-f]+ · pushed$/);
    await expect(page.getByTestId('detail-git-base')).toHaveText(/^main @ [0-9a-f]{12}$/);
    await expect(page.getByTestId('detail-git-commit')).toHaveText(/^[0-9a-f]{12}$/);
    await expect(page.getByTestId('detail-git-pr')).toHaveText('none');
    await expect(page.getByTestId('detail-git-note')).toContainText('delivered 1 path(s) to task/');
    if (process.env.RUNNER_TRAY_SCREENSHOTS) {
      await page.evaluate(async () => {
        await document.fonts.ready;
        await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      });
      await page.screenshot({ path: `docs/screenshots/sechroom-turn-${scheme}.png`, caret: 'hide', animations: 'disabled' });
    }
    await context.close();
  }
});
