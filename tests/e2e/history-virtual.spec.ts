import { expect, test } from '@playwright/test';
import { toTurnRow, type TurnView } from '../../shared/turns';
import { startHeadlessHost, type RunningHost } from './headless-host';

let host: RunningHost;

test.beforeAll(async () => {
  host = await startHeadlessHost();
});

test.afterAll(async () => {
  await host.stop();
});

const COUNT = 1_000;

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

type ClientFrame = { id: number; command: string; input?: { offset?: number; limit?: number; id?: string } };
/** The host pushes the first view's answers unasked (`first` frames), the history's first page among them. */
type PushedFrame = { type: string; command?: string; input?: { limit?: number } };

test('1,000 turns of history page in while the list scrolls, and choosing a row fetches its tail', async ({ page }) => {
  // The host has no history to give, so its turns:list and turns:detail are answered on
  // the way to the page from 1,000 made-up turns: the window cannot tell them from real ones.
  const all = Array.from({ length: COUNT }, (_, i) => finishedTurn(i));
  const windows: { offset: number; limit: number; rows: number; lean: boolean }[] = [];
  const details: string[] = [];
  let toPage: ((frame: string) => void) | null = null;
  const historyPage = (offset: number, limit: number) => {
    const history = all.slice(offset, offset + limit).map(toTurnRow);
    windows.push({ offset, limit, rows: history.length, lean: history.every((r) => !('outputTail' in r) && !('summary' in r)) });
    return { ok: true, value: { active: [], history, offset, total: all.length } };
  };
  await page.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    toPage = (frame) => ws.send(frame);
    server.onMessage((message) => {
      const frame = JSON.parse(String(message)) as PushedFrame;
      if (frame.type === 'first' && frame.command === 'turns:list') {
        ws.send(JSON.stringify({ ...frame, result: historyPage(0, frame.input?.limit ?? 100) }));
        return;
      }
      ws.send(String(message));
    });
    ws.onMessage((message) => {
      const frame = JSON.parse(String(message)) as ClientFrame;
      if (frame.command === 'turns:list') {
        ws.send(JSON.stringify({ type: 'result', id: frame.id, result: historyPage(frame.input?.offset ?? 0, frame.input?.limit ?? 100) }));
        return;
      }
      if (frame.command === 'turns:detail') {
        details.push(frame.input?.id ?? '');
        const turn = all.find((t) => t.id === frame.input?.id) ?? null;
        ws.send(JSON.stringify({ type: 'result', id: frame.id, result: { ok: true, value: turn } }));
        return;
      }
      server.send(String(message));
    });
  });
  await host.open(page, '#turns');
  const list = page.getByTestId('turn-history');
  await expect(page.getByRole('heading', { name: 'History (1,000)' })).toBeVisible();
  const rows = page.getByTestId('history-row');
  await expect(rows.first()).toContainText('summary number 0');
  await expect(rows.first()).toHaveAttribute('aria-setsize', String(COUNT));
  // Only the first window came (pushed with the socket), and its rows carried no tail and no summary.
  expect(windows).toEqual([{ offset: 0, limit: 100, rows: 100, lean: true }]);
  expect(await rows.count()).toBeLessThan(60);

  // Scrolling down past the rows held asks for the next windows; the rows page in.
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight * 0.5));
  await expect(page.locator(`[data-testid=history-row][aria-posinset="${COUNT / 2 + 1}"]`)).toContainText(`summary number ${COUNT / 2}`);
  await list.evaluate((el) => (el.scrollTop = el.scrollHeight));
  await expect(page.locator(`[data-testid=history-row][aria-posinset="${COUNT}"]`)).toContainText(`summary number ${COUNT - 1}`);
  await expect(page.getByTestId('history-row-pending')).toHaveCount(0);
  expect(windows.length).toBeGreaterThan(1);
  // Each window starts where the held rows ended, is at most 500 rows, and carries no tails.
  let held = 0;
  for (const w of windows) {
    expect(w).toMatchObject({ offset: held, lean: true });
    expect(w.limit).toBeLessThanOrEqual(500);
    held += w.rows;
  }
  expect(held).toBe(COUNT);
  expect(await rows.count()).toBeLessThan(60);

  // Choosing a row fetches its full record: the summary and the output tail show.
  expect(details).toEqual([]);
  await page.locator(`[data-testid=history-row][aria-posinset="${COUNT - 1}"]`).click();
  await expect(page.getByTestId('detail-summary')).toHaveText(`summary number ${COUNT - 2}`);
  await expect(page.getByTestId('output-tail')).toHaveText(`output of turn ${COUNT - 2}`);
  expect(details).toEqual([all[COUNT - 2]!.id]);

  // Keys move through the rows held: Home selects the newest, End the oldest.
  await list.focus();
  await page.keyboard.press('Home');
  await expect(page.getByTestId('output-tail')).toHaveText('output of turn 0');
  await page.keyboard.press('End');
  await expect(page.getByTestId('detail-summary')).toHaveText(`summary number ${COUNT - 1}`);
  const active = await list.getAttribute('aria-activedescendant');
  await expect(page.locator(`[id="${active}"]`)).toHaveAttribute('aria-selected', 'true');

  // A turn that finishes now comes by turns:update: it goes on top and the count grows.
  const fresh = { ...finishedTurn(-1), id: 'turn-fresh', summary: 'the newest one', outputTail: 'fresh output' };
  all.unshift(fresh);
  toPage!(JSON.stringify({ type: 'events', events: [{ event: 'turns:update', payload: { active: [], removed: [], finished: [fresh] } }] }));
  await expect(page.getByRole('heading', { name: 'History (1,001)' })).toBeVisible();
  await list.evaluate((el) => (el.scrollTop = 0));
  await expect(rows.first()).toContainText('the newest one');
  await rows.first().click();
  await expect(page.getByTestId('output-tail')).toHaveText('fresh output');
});

test('the dashboard shows the host before turns:list answers', async ({ page }) => {
  const all = Array.from({ length: COUNT }, (_, i) => finishedTurn(i));
  const held: (() => void)[] = [];
  await page.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    server.onMessage((message) => {
      const frame = JSON.parse(String(message)) as PushedFrame;
      if (frame.type === 'first' && frame.command === 'turns:list') {
        const value = { active: [], history: all.slice(0, frame.input?.limit ?? 100).map(toTurnRow), offset: 0, total: all.length };
        held.push(() => ws.send(JSON.stringify({ ...frame, result: { ok: true, value } })));
        return;
      }
      ws.send(String(message));
    });
  });
  await host.open(page, '#dashboard');
  await expect(page.getByTestId('view-dashboard')).toBeVisible();
  await expect(page.getByTestId('status-line')).not.toHaveText('Waiting for the host…');
  // The history's first page was pushed at once, and lands when it reaches the page.
  expect(held).toHaveLength(1);
  await page.getByTestId('tab-turns').click();
  await expect(page.getByTestId('history-loading')).toBeVisible();
  held.shift()!();
  await expect(page.getByRole('heading', { name: 'History (1,000)' })).toBeVisible();
});
