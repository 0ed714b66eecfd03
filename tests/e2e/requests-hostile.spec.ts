import Database from 'better-sqlite3';
import { expect, test, type Page } from '@playwright/test';
import { openDetail, openRequests, row, signInAs, startRequestsStack, type RequestsStack } from './requests-helpers';

let stack: RequestsStack;

test.afterEach(async () => {
  await stack?.stop();
});

const HOSTILE = {
  img: '<img src=x onerror="window.__pwned=1;alert(1)">',
  script: '<script>window.__pwned=2</script>Deploy <b>now</b>',
  long: `${'Long title with words '.repeat(300)}${'x'.repeat(3400)}`.slice(0, 10_000),
  unbroken: 'W'.repeat(10_000),
  rtl: 'Invoice \u202Egnp.exe\u202C report',
  zeroWidth: 'Zero\u200Bwidth\u200C\u200Djoin\uFEFFers\u2060here',
  markdown: '**bold** [click](javascript:window.__pwned=3) ![x](http://evil.example/x.png)',
};

/** Hostile text everywhere the control plane writes: titles, plans, questions, answers, gates, tasks, changesets. */
function seedHostile(): Record<keyof typeof HOSTILE, string> {
  const ids = {} as Record<keyof typeof HOSTILE, string>;
  for (const [key, title] of Object.entries(HOSTILE) as [keyof typeof HOSTILE, string][]) {
    // The admin API caps titles at 2000 characters; longer ones go straight into the emulator's database.
    const created = stack.emu.admin.createBuildRequest({ title: title.slice(0, 2000), status: 'in_progress', max_iterations: 5, iterations_used: 1 });
    ids[key] = created.id;
  }
  const db = new Database(stack.dbFile);
  try {
    for (const key of ['long', 'unbroken'] as const) db.prepare('UPDATE build_requests SET title = ? WHERE id = ?').run(HOSTILE[key], ids[key]);
  } finally {
    db.close();
  }
  const target = ids.img;
  stack.emu.admin.addPlanVersion(target, {
    summary: HOSTILE.script,
    confidence_score: 40,
    clarifying_questions: [HOSTILE.img, HOSTILE.rtl],
    clarification_answers: [{ question: HOSTILE.img, answer: HOSTILE.markdown }],
  });
  stack.emu.admin.addGate(target, { kind: 'plan_approval', title: HOSTILE.img, status: 'open' });
  stack.emu.admin.addTask(target, { title: HOSTILE.script, status: 'completed', checkpoint_ref: HOSTILE.zeroWidth });
  stack.emu.admin.addChangeset(target, { title: HOSTILE.img, pr_url: 'javascript:window.__pwned=4', branch: HOSTILE.rtl });
  return ids;
}

async function watchForExecution(page: Page): Promise<string[]> {
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.addInitScript(() => {
    // Anything that runs would set this or open a dialog.
    (window as unknown as { __pwned?: unknown }).__pwned = undefined;
  });
  return dialogs;
}

async function pageHolds(page: Page): Promise<void> {
  const layout = await page.evaluate(() => ({
    pwned: (window as unknown as { __pwned?: unknown }).__pwned,
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
    injected: document.querySelector('[data-testid=requests-view]')!.querySelectorAll('img, script, iframe, b, a[href^="javascript"], a[href^="http://evil"]')
      .length,
  }));
  expect(layout.pwned).toBeUndefined();
  expect(layout.injected).toBe(0);
  expect(layout.scrollWidth).toBeLessThanOrEqual(layout.clientWidth);
}

test('hostile request text is shown as text: nothing runs, and the layout holds', async ({ page }) => {
  stack = await startRequestsStack();
  const dialogs = await watchForExecution(page);
  const ids = seedHostile();
  await page.setViewportSize({ width: 900, height: 640 });
  await openRequests(page, stack);
  await signInAs(page, stack, 'Ada Admin');
  // 13 on the board (it draws only the rows in view; the hostile ones are the newest, on top).
  await expect(page.getByTestId('request-board')).toHaveAttribute('aria-rowcount', '14');

  // Shown literally, as text.
  await expect(row(page, ids.img)).toContainText('<img src=x onerror="window.__pwned=1;alert(1)">');
  await expect(row(page, ids.script)).toContainText('<script>window.__pwned=2</script>Deploy <b>now</b>');
  await expect(row(page, ids.markdown)).toContainText('**bold** [click](javascript:');

  // Every row stays bounded: two lines of title at most, clipped.
  for (const id of Object.values(ids)) {
    const box = await row(page, id).boundingBox();
    expect(box, id).not.toBeNull();
    expect(box!.height, id).toBeLessThanOrEqual(90);
    expect(box!.width, id).toBeLessThanOrEqual(900);
  }
  const title = row(page, ids.unbroken).locator('.req-title');
  const clip = await title.evaluate((el) => ({
    overflow: getComputedStyle(el).overflow,
    clamp: getComputedStyle(el).webkitLineClamp,
    height: el.getBoundingClientRect().height,
  }));
  expect(clip.overflow).toBe('hidden');
  expect(clip.clamp).toBe('2');
  expect(clip.height).toBeLessThanOrEqual(40);
  // The right-to-left override stays inside its own isolated element.
  expect(await row(page, ids.rtl).locator('bdi').count()).toBeGreaterThan(0);
  await pageHolds(page);

  // The detail of the worst one: plan, questions, answers, gate, task and changeset are text too.
  await openDetail(page, ids.img);
  await expect(page.getByTestId('clarifications')).toContainText('<img src=x onerror=');
  await expect(page.getByTestId('clarifications')).toContainText('[click](javascript:window.__pwned=3)');
  await expect(page.getByTestId('plan-versions')).toContainText('<script>window.__pwned=2</script>');
  await expect(page.getByTestId('gates')).toContainText('<img src=x');
  await expect(page.getByTestId('changesets').getByRole('link')).toHaveCount(0);
  await pageHolds(page);

  await page.getByRole('button', { name: '← All requests' }).click();
  await openDetail(page, ids.long);
  const head = await page.getByTestId('detail-title').boundingBox();
  expect(head!.height).toBeLessThanOrEqual(80);
  await pageHolds(page);
  await page.getByRole('button', { name: '← All requests' }).click();
  await openDetail(page, ids.unbroken);
  await pageHolds(page);

  expect(dialogs).toEqual([]);
});
