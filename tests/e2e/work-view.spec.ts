import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { handExecutor } from '../helpers/work-layer-executor';
import { startHeadlessHost, type RunningHost } from './headless-host';

// The Work view against the real headless host and the Sechroom emulator: the host reaches
// the Work Layer through RUNNER_TRAY_SECHROOM_URL / _TENANT and SECHROOM_TOKEN.

const HOSTILE = '<img src=x onerror="window.__pwned=1">Invoice export **now** \u202Egnp.exe';

let emu: RunningEmulator;
let host: RunningHost;

test.afterEach(async () => {
  await host?.stop();
  await emu?.close();
});

async function seed() {
  const minted = emu.sechroom.mintToken();
  const brief = emu.sechroom.createBrief({ title: HOSTILE });
  const plan = emu.sechroom.createDecomposition({ brief_id: brief.id, title: 'Export plan', status: 'Accepted' });
  const held = emu.sechroom.createTask({ title: 'Add the CSV button', decomposition_id: plan.id, lane: 'codex-a' });
  const done = emu.sechroom.createTask({ title: 'Write the exporter', decomposition_id: plan.id });
  const other = emu.sechroom.createBrief({ title: 'Second brief' });
  // An executor instance holds one task and has completed the other (soft-fail).
  const executor = await handExecutor(emu, minted);
  await executor.complete(done.memoryId, 'Write the exporter', 'soft-fail');
  await executor.take(held.memoryId);
  return { minted, brief, plan, held, done, other };
}

async function expectNoSeriousViolations(page: Page, what: string): Promise<void> {
  const results = await new AxeBuilder({ page }).include('[data-testid=work-view]').analyze();
  const serious = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${what}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(serious).toEqual([]);
}

const briefCard = (page: Page, id: string) => page.locator(`[data-testid=work-brief][data-brief-id="${id}"]`);
const briefStatus = (id: string) => emu.sechroom.listBriefs().find((b) => b.id === id)!;

async function act(page: Page, briefId: string, action: string, expectWhat: RegExp): Promise<void> {
  const card = briefCard(page, briefId);
  await card.getByTestId(`brief-action-${action}`).click();
  await expect(card.getByTestId('work-confirm-what')).toHaveText(expectWhat);
  await card.getByTestId('work-confirm-action').click();
  await expect(card.getByTestId('work-confirm')).toHaveCount(0);
}

test('the Work view lists briefs, plans and tasks, and pauses, resumes, parks, unparks, supersedes, cancels and returns for revision, each confirmed once', async ({
  page,
}) => {
  emu = await startEmulator({});
  const s = await seed();
  host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store'], {
    RUNNER_TRAY_SECHROOM_URL: emu.sechroomUrl,
    RUNNER_TRAY_SECHROOM_TENANT: s.minted.tenant,
    SECHROOM_TOKEN: s.minted.access_token,
  });
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  await host.open(page);
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  await page.getByRole('tab', { name: 'Work' }).click();
  await expect(page.getByTestId('work-view')).toBeVisible();

  // The board: hostile text as text, the lease holder, the verdict and the last completion.
  const card = briefCard(page, s.brief.id);
  await expect(card.locator('.work-title')).toHaveText(HOSTILE);
  await expect(card.locator('img')).toHaveCount(0);
  await expect(card.getByTestId('brief-status')).toHaveText('Ready');
  const heldRow = card.locator(`[data-testid=work-task][data-task-id="${s.held.memoryId}"]`);
  await expect(heldRow.getByTestId('task-status')).toHaveText('Leased');
  await expect(heldRow.getByTestId('task-lease')).toHaveText('codex-a');
  const doneRow = card.locator(`[data-testid=work-task][data-task-id="${s.done.memoryId}"]`);
  await expect(doneRow.getByTestId('task-verdict')).toHaveText('soft-fail');
  await expect(doneRow.getByTestId('task-last')).toHaveText(/^soft-fail · codex-a · \d\d:\d\d$/);

  await expectNoSeriousViolations(page, 'work board');

  // Escape closes a confirmation without sending anything.
  await card.getByTestId('brief-action-pause').click();
  await expect(card.getByTestId('work-confirm')).toBeVisible();
  await expectNoSeriousViolations(page, 'work confirmation');
  await page.keyboard.press('Escape');
  await expect(card.getByTestId('work-confirm')).toHaveCount(0);
  expect(briefStatus(s.brief.id).status).toBe('ready_for_decomposition');

  // Pause with a reason code and text.
  await card.getByTestId('brief-action-pause').click();
  await expect(card.getByTestId('work-confirm-what')).toHaveText(/stops offering its tasks to executors\. Tasks already leased run on/);
  await card.getByTestId('work-reason-code').selectOption('scope_change');
  await card.getByTestId('work-reason').fill('Waiting on <b>design</b>');
  await card.getByTestId('work-confirm-action').click();
  await expect(card.getByTestId('work-notice')).toHaveText(/^Paused/);
  await expect(card.getByTestId('brief-status')).toHaveText('Paused');
  expect(briefStatus(s.brief.id)).toMatchObject({ status: 'paused', reasonCode: 'scope_change', reason: 'Waiting on <b>design</b>', source: 'runner-tray' });
  await expect(card.getByTestId('brief-reason')).toContainText('Waiting on <b>design</b>');

  await act(page, s.brief.id, 'resume', /offers its ready tasks to executors again/);
  await expect(card.getByTestId('brief-status')).toHaveText('Ready');
  await act(page, s.brief.id, 'park', /set aside: it offers no new tasks until it is unparked/);
  await expect(card.getByTestId('brief-status')).toHaveText('Parked');
  await expect(card.getByTestId('brief-action-resume')).toHaveCount(0);
  await act(page, s.brief.id, 'unpark', /ready for work again/);
  await expect(card.getByTestId('brief-status')).toHaveText('Ready');

  // Return the plan for revision: the notes are required; a new pending plan appears.
  const plan = card.locator(`[data-testid=work-plan][data-plan-id="${s.plan.id}"]`);
  await plan.getByTestId('plan-revise').click();
  await expect(plan.getByTestId('work-confirm-what')).toHaveText(/A new pending plan for the same brief gets a copy of every task not completed with pass/);
  await expect(plan.getByTestId('work-confirm-action')).toBeDisabled();
  await plan.getByTestId('work-notes').fill('Split the exporter from the button.');
  await plan.getByTestId('work-confirm-action').click();
  await expect(plan.getByTestId('work-notice')).toHaveText(/^Returned for revision/);
  await expect(plan.getByTestId('plan-status')).toHaveText('ReturnedForRevision');
  await expect(card.getByTestId('work-plan')).toHaveCount(2);
  await expect(card.getByText('Revision notes: Split the exporter from the button.')).toBeVisible();

  // Supersede the other brief: final, no actions left.
  const other = briefCard(page, s.other.id);
  await act(page, s.other.id, 'supersede', /This is final: the brief offers nothing more/);
  await expect(other.getByTestId('brief-status')).toHaveText('Superseded');
  await expect(other.getByRole('button', { name: /Pause|Resume|Cancel|Park/ })).toHaveCount(0);

  // Cancel the first: its running lease ends at once.
  await act(page, s.brief.id, 'cancel', /This is final: a canceled brief cannot be resumed\. Its running leases end at once/);
  await expect(card.getByTestId('brief-status')).toHaveText('Canceled');
  expect(emu.sechroom.listLeases({ memory_id: s.held.memoryId })[0]).toMatchObject({ status: 'canceled' });
  await expect(heldRow.getByTestId('task-lease')).toHaveText('—');

  expect(dialogs).toEqual([]);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
});

test('without a Work Layer the view says it belongs to Sechroom profiles, and what to set', async ({ page }) => {
  emu = await startEmulator({});
  host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store']);
  await host.open(page, '#work');
  await expect(page.getByTestId('work-not-configured')).toHaveText(
    /^The Work view belongs to Sechroom profiles.*set RUNNER_TRAY_SECHROOM_URL, RUNNER_TRAY_SECHROOM_TENANT and SECHROOM_TOKEN/,
  );
});
