import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHeadlessHost, type RunningHost } from '../e2e/headless-host';
import { openAddress, windowProtocols } from '../helpers/window-session';

/**
 * The headless host's credentials cannot be replayed or leaked: an address opens one
 * window, once, trading its token for a port-named HttpOnly cookie (the page's files) and
 * a window key only that page gets (the WebSocket wants both). Scripts use the script
 * token, which lives only in the 0600 --token-file, never in an address.
 */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
}

function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    });
    req.on('error', reject);
  });
}

function upgrade(port: number, options: { path?: string; origin?: string; headers?: Record<string, string>; protocols?: string[] }): Promise<number | 'open'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${options.path ?? '/ws'}`, options.protocols ?? [], {
      ...(options.origin ? { origin: options.origin } : {}),
      headers: options.headers ?? {},
    });
    ws.on('open', () => {
      ws.close();
      resolve('open');
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => undefined);
  });
}

const ADDRESS_TOKEN = (url: string): string => new URL(url).searchParams.get('token') ?? '';

describe('a window session', () => {
  let host: RunningHost;
  // The window's files are this test's own: what is checked is who is let in, whether or
  // not `npm run build` has run (vitest runs before the build on a clean clone).
  const windowDir = mkdtempSync(path.join(tmpdir(), 'rt-window-'));
  writeFileSync(path.join(windowDir, 'index.html'), '<!doctype html><title>Runner Tray</title>');
  beforeAll(async () => {
    host = await startHeadlessHost(['--control-plane', 'http://127.0.0.1:9', '--allow-file-secret-store'], { RUNNER_TRAY_WINDOW_DIR: windowDir });
  });
  afterAll(async () => {
    await host?.stop();
    rmSync(windowDir, { recursive: true, force: true });
  });

  it('an address is traded once for a port-named HttpOnly cookie and a window key in its one answer', async () => {
    const opened = await openAddress(host.url);
    expect(opened.status).toBe(200);
    expect(opened.headers['cache-control']).toBe('no-store');
    const setCookie = opened.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(new RegExp(`^rt_session_${host.port}=[\\w-]{43}; HttpOnly; SameSite=Strict; Path=/$`));
    expect(opened.windowKey).toMatch(/^[\w-]{43}$/);
    // Three values that never meet: the address token, the cookie, the key.
    const token = ADDRESS_TOKEN(host.url);
    expect(setCookie).not.toContain(token);
    expect(opened.body).not.toContain(token);
    expect(opened.cookie).not.toContain(opened.windowKey);

    // The page's files take the cookie; the WebSocket takes the cookie and this window's key.
    const { cookie, windowKey } = opened;
    expect((await get(`${host.origin}/`, { cookie })).status).toBe(200);
    expect(await upgrade(host.port, { origin: host.origin, headers: { cookie }, protocols: windowProtocols(windowKey) })).toBe('open');
    expect(await upgrade(host.port, { origin: 'http://evil.example', headers: { cookie }, protocols: windowProtocols(windowKey) })).toBe(403);
    // A cookie of another port's host opens nothing here.
    expect((await get(`${host.origin}/`, { cookie: cookie.replace(`rt_session_${host.port}`, 'rt_session_1') })).status).toBe(401);
  });

  it('a replayed cookie opens no WebSocket: a page on another 127.0.0.1 port has the cookie, never the key', async () => {
    const mine = await openAddress(await host.newUrl());
    const other = await openAddress(await host.newUrl());
    // Cookies ignore ports, so a service on another loopback port can be sent ours and
    // replay it with a forged Origin (the hole a review found: it got app:info).
    expect(await upgrade(host.port, { origin: host.origin, headers: { cookie: mine.cookie } })).toBe(401);
    expect(await upgrade(host.port, { origin: host.origin, headers: { cookie: mine.cookie }, protocols: ['runner-tray'] })).toBe(401);
    // The key of another window does not fit this cookie, nor a made-up one.
    expect(await upgrade(host.port, { origin: host.origin, headers: { cookie: mine.cookie }, protocols: windowProtocols(other.windowKey) })).toBe(401);
    expect(await upgrade(host.port, { origin: host.origin, headers: { cookie: mine.cookie }, protocols: windowProtocols('x'.repeat(43)) })).toBe(401);
    // A key without its cookie is nothing either.
    expect(await upgrade(host.port, { origin: host.origin, protocols: windowProtocols(mine.windowKey) })).toBe(401);
    expect(await upgrade(host.port, { origin: host.origin, headers: { cookie: other.cookie }, protocols: windowProtocols(other.windowKey) })).toBe('open');
  });

  it('a page whose key the host does not know is told so by its close probe', async () => {
    const opened = await openAddress(await host.newUrl());
    expect((await get(`${host.origin}/`, { cookie: opened.cookie, 'x-runner-tray-window': opened.windowKey })).status).toBe(200);
    expect((await get(`${host.origin}/`, { cookie: opened.cookie, 'x-runner-tray-window': 'wrong' })).status).toBe(401);
  });

  it('an address used twice is refused the second time, and with its cookie it just lands on the page', async () => {
    const fresh = await host.newUrl();
    const first = await openAddress(fresh);
    expect(first.status).toBe(200);
    const again = await openAddress(fresh);
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(again.windowKey).toBe('');
    const withCookie = await openAddress(fresh, { cookie: first.cookie });
    expect(withCookie.status).toBe(303);
    expect(withCookie.headers.location).toBe('/');
    expect(withCookie.headers['set-cookie']).toBeUndefined();
    expect(withCookie.windowKey).toBe('');
  });

  it('an address token opens no WebSocket, whether sent as a Bearer or in the WebSocket address, and such a try spends it', async () => {
    // Before use: the printed token as a Bearer (what the old host accepted for ever).
    const unused = await host.newUrl();
    expect(await upgrade(host.port, { headers: { authorization: `Bearer ${ADDRESS_TOKEN(unused)}` } })).toBe(401);
    expect((await openAddress(unused)).status).toBe(401);
    // After use.
    const used = await host.newUrl();
    expect((await openAddress(used)).status).toBe(200);
    expect(await upgrade(host.port, { headers: { authorization: `Bearer ${ADDRESS_TOKEN(used)}` } })).toBe(401);
    expect(await upgrade(host.port, { origin: host.origin, headers: { authorization: `Bearer ${ADDRESS_TOKEN(used)}` } })).toBe(401);
    // In the WebSocket address.
    const inPath = await host.newUrl();
    expect(await upgrade(host.port, { path: `/ws?token=${ADDRESS_TOKEN(inPath)}`, origin: host.origin })).toBe(401);
    expect((await openAddress(inPath)).status).toBe(401);
    // Without a token file there is no script token to guess: nothing else opens.
    expect(host.token).toBe('');
    expect(await upgrade(host.port, { headers: { authorization: 'Bearer not-the-token' } })).toBe(401);
    expect(await upgrade(host.port, { origin: host.origin })).toBe(401);
  });
});

describe('--token-file', () => {
  let host: RunningHost;
  let file = '';
  beforeAll(async () => {
    // With --token-file the address is not on the terminal: the helper reads it from the file.
    host = await startHeadlessHost(
      ['--control-plane', 'http://127.0.0.1:9', '--allow-file-secret-store', '--token-file', 'TOKEN_FILE'],
      {},
      { addressFrom: 'token-file' },
    );
    file = path.join(host.dataDir, 'address.env');
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('writes the address and the script token to a 0600 file, and neither to the terminal; the script token is in no address', async () => {
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`RUNNER_TRAY_URL=${host.url}\n`);
    expect(host.token).toMatch(/^[\w-]{43}$/);
    expect(text).toContain(`RUNNER_TRAY_TOKEN=${host.token}\n`);
    expect(host.url).not.toContain(host.token);
    const terminal = host.output.join('\n');
    expect(terminal).toContain(`address written to ${file}`);
    expect(terminal).not.toContain(host.token);
    expect(terminal).not.toContain('?token=');
  });

  it("the script token opens the WebSocket as a Bearer, from a script or a page's origin, and never as an address", async () => {
    expect(await upgrade(host.port, { headers: { authorization: `Bearer ${host.token}` } })).toBe('open');
    expect(await upgrade(host.port, { origin: host.origin, headers: { authorization: `Bearer ${host.token}` } })).toBe('open');
    expect(await upgrade(host.port, { origin: 'http://evil.example', headers: { authorization: `Bearer ${host.token}` } })).toBe(403);
    expect(await upgrade(host.port, { path: `/ws?token=${host.token}`, origin: host.origin })).toBe(401);
    expect((await openAddress(`${host.origin}/?token=${host.token}`)).status).toBe(401);
    // It still works after those tries: a script token is not spent.
    expect(await upgrade(host.port, { headers: { authorization: `Bearer ${host.token}` } })).toBe('open');
  });

  it('SIGUSR2 writes a new address into the file, not the terminal', async () => {
    const fresh = await host.newUrl();
    expect(fresh).not.toBe(host.url);
    expect(readFileSync(file, 'utf8')).toContain(`RUNNER_TRAY_URL=${fresh}\n`);
    expect(readFileSync(file, 'utf8')).toContain(`RUNNER_TRAY_TOKEN=${host.token}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(host.output.join('\n')).not.toContain(fresh);
    expect((await openAddress(fresh)).status).toBe(200);
  });
});

describe('--open without a display', () => {
  let host: RunningHost;
  afterAll(async () => {
    await host?.stop();
  });

  it('says why no browser opens, and that the printed address is the way in', async () => {
    host = await startHeadlessHost(['--control-plane', 'http://127.0.0.1:9', '--allow-file-secret-store', '--open'], {
      DISPLAY: '',
      WAYLAND_DISPLAY: '',
      SSH_CONNECTION: '',
      SSH_TTY: '',
    });
    await host.newUrl(); // the lines of the start are all out once a later one is
    const terminal = host.output.join('\n');
    expect(terminal).toContain('--open: there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set); open the address above in a browser yourself.');
    expect(terminal).toContain(`open ${host.url}`);
  });
});
