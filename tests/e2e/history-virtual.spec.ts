import { expect, test } from '@playwright/test';
import type { TurnView } from '../../shared/turns';
import { startHeadlessHost, type RunningHost } from './headless-host';

let host: RunningHost;

test.beforeAll(async () => {
  host = await startHeadlessHost();
});

test.afterAll(async () => {
  await host.stop();
});

const COUNT = 10_000;

function finishedTurn(i: number): TurnView {
  const ended = Date.UTC(2026, 0, 1, 12) - i * 60_000;
  const phase = i % 7 === 0 ? 'failed' : i % 11 === 0 ? 'canceled' : 'succeeded';
  return {
    id: `turn-${String(i).padStart(5, '0')}`,
    kind: 'turn_execution',
    runtime: i % 2 ? 'codex' : 'claude',
    seat: { id: `seat-${i % 5}`, name: `Seat ${i % 5}` },
    buildRequestId: `br-${i % 40}`,
    startedAt: new Date(ended - 45_000).toISOString(),
    endedAt: new Date(ended).toISOString(),
    phase,
    pid: null,
    tokens: { input: 1000 + i, output: 100 + (i % 300) },
    costUsd: null,
    outputTail: `output of turn ${i}`,
    summary: `summary number ${i}`,
    lease: null,
    reason: phase === 'succeeded' ? null : `reason ${i}`,
  };
}

test('10,000 turns of history: only a window of rows is in the DOM, and it scrolls to the end', async ({ page }) => {
  // The host has no history to give, so 10,000 turns are put into its turns:list answer
  // on the way to the page: the window cannot tell them from real ones.
  await page.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    const listIds = new Set<number>();
    ws.onMessage((message) => {
      const frame = JSON.parse(String(message)) as { id: number; command: string };
      if (frame.command === 'turns:list') listIds.add(frame.id);
      server.send(String(message));
    });
    server.onMessage((message) => {
      const frame = JSON.parse(String(message)) as { type: string; id?: number; result?: { ok: boolean; value?: { history: TurnView[] } } };
      if (frame.type === 'result' && frame.id !== undefined && listIds.has(frame.id) && frame.result?.ok && frame.result.value) {
        frame.result.value.history = Array.from({ length: COUNT }, (_, i) => finishedTurn(i));
        ws.send(JSON.stringify(frame));
        return;
      }
      ws.send(String(message));
    });
  });
  await host.open(page, '#turns');
  const list = page.getByTestId('turn-history');
  await expect(page.getByRole('heading', { name: 'History (10,000)' })).toBeVisible();
  const rows = page.getByTestId('history-row');
  await expect(rows.first()).toContainText('summary number 0');
  const inDom = await rows.count();
  expect(inDom).toBeGreaterThan(5);
  expect(inDom).toBeLessThan(60);
  await expect(rows.first()).toHaveAttribute('aria-setsize', String(COUNT));

  // Scroll to the bottom: the last turn is rendered, the first is gone, the window stays small.
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(page.locator(`[data-testid=history-row][aria-posinset="${COUNT}"]`)).toContainText(`summary number ${COUNT - 1}`);
  await expect(page.getByText('summary number 0', { exact: true })).toHaveCount(0);
  expect(await rows.count()).toBeLessThan(60);

  // Scrolling through the middle keeps the DOM bounded at every step.
  for (const fraction of [0.25, 0.5, 0.75]) {
    await list.evaluate((el, f) => (el.scrollTop = el.scrollHeight * f), fraction);
    await expect(page.locator(`[data-testid=history-row][aria-posinset="${Math.round(COUNT * fraction) + 1}"]`)).toBeVisible();
    expect(await rows.count()).toBeLessThan(60);
  }

  // Keys reach rows that were never rendered: Home selects the newest, End the oldest.
  await list.focus();
  await page.keyboard.press('Home');
  await expect(page.getByTestId('detail-summary')).toHaveText('summary number 0');
  await page.keyboard.press('End');
  await expect(page.getByTestId('detail-summary')).toHaveText(`summary number ${COUNT - 1}`);
  await page.keyboard.press('PageUp');
  await expect(page.getByTestId('detail-summary')).toHaveText(`summary number ${COUNT - 11}`);
  await expect(list).toHaveAttribute('aria-activedescendant', /turn-09989$/);
  // The active descendant is a rendered row, so screen readers can read it.
  const active = await list.getAttribute('aria-activedescendant');
  await expect(page.locator(`[id="${active}"]`)).toHaveAttribute('aria-selected', 'true');
});
