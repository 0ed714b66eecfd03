import { connect } from 'node:net';
import { expect, test } from '@playwright/test';
import WebSocket from 'ws';
import { WINDOW_KEY_STORAGE } from '../../shared/window-session';
import { NO_WINDOW_REASON } from '../../renderer/src/bridge/ws-bridge';
import { startHeadlessHost, type RunningHost } from './headless-host';
import { openView } from './stack';

let host: RunningHost;

/** Whether a TCP connection to the loopback port is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test.beforeAll(async () => {
  // With a token file, so the host has a script token for the WebSocket tests below.
  host = await startHeadlessHost(['--token-file', 'TOKEN_FILE'], {}, { addressFrom: 'token-file' });
});

test.afterAll(async () => {
  await host.stop();
});

test('the first screen shows live data from the host', async ({ page }) => {
  await host.open(page);
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  await expect(page.getByTestId('status-line')).toHaveText('Not paired');
  await expect(page.getByTestId('status-reason')).toContainText('not paired');
  // An unpaired machine opens on pairing: it is the one thing it can do.
  await expect(page.getByTestId('view-pairing')).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Pairing' })).toHaveAttribute('aria-selected', 'true');

  await openView(page, 'dashboard');
  await expect(page.getByTestId('app-mode')).toHaveText('Headless host');
  await expect(page.getByTestId('app-version')).toHaveText(/^\d+\.\d+\.\d+/);
  await expect(page.getByTestId('pairing-callout')).toContainText('not paired');

  // Uptime ticks between snapshots.
  const first = await page.getByTestId('app-uptime').textContent();
  await expect(page.getByTestId('app-uptime')).not.toHaveText(first ?? '', { timeout: 3000 });

  // The token never stayed in the address bar (the handoff page replaced it with a clean
  // URL), and no script can read the session: it is an HttpOnly cookie. The origin keeps
  // its window key and nothing else; a reload still connects, on the same view.
  expect(new URL(page.url()).searchParams.has('token')).toBe(false);
  expect(await page.evaluate(() => document.cookie)).toBe('');
  const storage = await page.evaluate(() => JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)]));
  expect(storage).not.toContain(host.token);
  expect(storage).not.toContain(new URL(host.url).searchParams.get('token'));
  expect(await page.evaluate((name) => localStorage.getItem(name), WINDOW_KEY_STORAGE)).toMatch(/^[\w-]{43}$/);
  await page.reload();
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  await expect(page.getByTestId('app-mode')).toHaveText('Headless host');

  // Events flow: the host's own start-up lines are in the activity list.
  await openView(page, 'activity');
  await expect(page.getByTestId('log-list')).toContainText('host started');
});

test('the views are tabs: arrow keys move between them', async ({ page }) => {
  await host.open(page, '#dashboard');
  await expect(page.getByTestId('view-dashboard')).toBeVisible();
  await page.getByRole('tab', { name: 'Dashboard' }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(page.getByRole('tab', { name: /^Turns/ })).toBeFocused();
  await expect(page.getByTestId('view-turns')).toBeVisible();
  await page.keyboard.press('End');
  await expect(page.getByTestId('view-settings')).toBeVisible();
  await page.keyboard.press('Home');
  await expect(page.getByTestId('view-dashboard')).toBeVisible();
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByTestId('view-settings')).toBeVisible();
  await expect(page.getByRole('tabpanel')).toHaveAttribute('aria-labelledby', 'tab-settings');
});

test('a page request without a session is refused; an address opens one, once', async ({ playwright }) => {
  const request = await playwright.request.newContext();
  const bare = await request.get(`${host.origin}/`);
  expect(bare.status()).toBe(401);
  const wrong = await request.get(`${host.origin}/?token=not-the-token`);
  expect(wrong.status()).toBe(401);
  const asset = await request.get(`${host.origin}/index.html`);
  expect(asset.status()).toBe(401);
  const address = await host.newUrl();
  const good = await request.get(address);
  // The handoff page (it carries this window's key once, and the page's own policy).
  expect(good.status()).toBe(200);
  expect(good.headers()['cache-control']).toBe('no-store');
  expect(good.headers()['content-security-policy']).toContain("script-src 'self'");
  expect(await good.text()).toContain('runner-tray-window-key');
  // With its cookie the page's files load.
  expect((await request.get(`${host.origin}/`)).status()).toBe(200);
  // Another client (no cookie) with the same address is refused: it was spent.
  const other = await playwright.request.newContext();
  expect((await other.get(address)).status()).toBe(401);
  await Promise.all([request.dispose(), other.dispose()]);
});

function upgradeStatus(url: string, origin: string, bearer?: string): Promise<number | 'open'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { origin, ...(bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {}) });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
}

test("another tab of the same browser shares the window (a view's own address opens there); without the key a tab says so", async ({ page, context }) => {
  await host.open(page, '#dashboard');
  await expect(page.getByTestId('connection-state')).toHaveText('Connected');
  // The cookie and the key (this origin's localStorage) are the browser's: a second tab connects.
  const other = await context.newPage();
  await other.goto(`${host.origin}/#settings`);
  await expect(other.getByTestId('connection-state')).toHaveText('Connected');
  await expect(other.getByTestId('view-settings')).toBeVisible();
  // A tab whose key is gone (storage cleared, or another port's page replaying the cookie) opens nothing.
  await other.evaluate((name) => localStorage.removeItem(name), WINDOW_KEY_STORAGE);
  await other.reload();
  await expect(other.getByTestId('connection-banner')).toContainText(NO_WINDOW_REASON.slice(0, 40));
  await expect(other.getByTestId('connection-state')).not.toHaveText('Connected');
  await other.close();
});

test('a WebSocket without a session or bearer, with the token in its address, or from another origin, is refused', async () => {
  const ws = host.origin.replace('http', 'ws') + '/ws';
  expect(await upgradeStatus(ws, host.origin)).toBe(401);
  expect(host.token).not.toBe('');
  expect(await upgradeStatus(`${ws}?token=${host.token}`, host.origin)).toBe(401);
  expect(await upgradeStatus(`${ws}?token=${new URL(await host.newUrl()).searchParams.get('token')}`, host.origin)).toBe(401);
  expect(await upgradeStatus(ws, 'http://evil.example', host.token)).toBe(403);
  expect(await upgradeStatus(ws, host.origin, host.token)).toBe('open');
});

test('the window says when the host goes away and reconnects', async ({ page }) => {
  const second = await startHeadlessHost();
  try {
    await page.goto(second.url);
    await expect(page.getByTestId('connection-state')).toHaveText('Connected');
    await second.stop();
    // The host is gone and so is its listener (this failed once in a full run with the window
    // still saying Connected: this line tells a host still listening from a page that missed it).
    expect(await accepts(second.port), `something still listens on ${second.port}`).toBe(false);
    await expect(page.getByTestId('connection-banner')).toContainText('Lost the connection to the host');
    await expect(page.getByTestId('connection-state')).toHaveText('Reconnecting');
  } finally {
    await second.stop();
  }
});
