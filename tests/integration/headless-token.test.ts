import { readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startHeadlessHost, type RunningHost } from '../e2e/headless-host';

/**
 * The headless host's launch token cannot leak: an address opens one browser session,
 * once, and leaves a clean URL and a port-named HttpOnly cookie behind; scripts use the
 * launch token as a bearer header, never in an address.
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

function upgrade(port: number, options: { path?: string; origin?: string; headers?: Record<string, string> }): Promise<number | 'open'> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${options.path ?? '/ws'}`, {
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

/** Opens an address as a browser would and returns the session cookie it was given. */
async function openAddress(url: string): Promise<{ cookie: string; answer: Answer }> {
  const answer = await get(url);
  const setCookie = answer.headers['set-cookie']?.[0] ?? '';
  return { cookie: setCookie.split(';')[0] ?? '', answer };
}

describe('the headless launch token', () => {
  let host: RunningHost;
  beforeAll(async () => {
    host = await startHeadlessHost(['--control-plane', 'http://127.0.0.1:9', '--allow-file-secret-store']);
  });
  afterAll(async () => {
    await host?.stop();
  });

  it('is traded once for a session in a port-named HttpOnly cookie, with a redirect to a clean address', async () => {
    const { cookie, answer } = await openAddress(`${host.url}`);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/');
    const setCookie = answer.headers['set-cookie']?.[0] ?? '';
    expect(setCookie).toMatch(new RegExp(`^rt_session_${host.port}=[\\w-]{43}; HttpOnly; SameSite=Strict; Path=/$`));
    // The session is a value of its own, not the launch token.
    expect(setCookie).not.toContain(host.token);

    // The page and the WebSocket take the session (a browser always sends its Origin).
    expect((await get(`${host.origin}/`, { cookie })).status).not.toBe(401);
    expect(await upgrade(host.port, { origin: host.origin, headers: { cookie } })).toBe('open');
    expect(await upgrade(host.port, { origin: 'http://evil.example', headers: { cookie } })).toBe(403);
    // A cookie of another port's host opens nothing here.
    expect((await get(`${host.origin}/`, { cookie: cookie.replace(`rt_session_${host.port}`, 'rt_session_1') })).status).toBe(401);
  });

  it('used twice is refused the second time', async () => {
    const again = await get(host.url);
    expect(again.status).toBe(401);
    expect(again.headers['set-cookie']).toBeUndefined();
  });

  it('is never accepted in a WebSocket address, only as a bearer header', async () => {
    expect(await upgrade(host.port, { path: `/ws?token=${host.token}`, origin: host.origin })).toBe(401);
    expect(await upgrade(host.port, { headers: { authorization: `Bearer ${host.token}` } })).toBe('open');
    expect(await upgrade(host.port, { origin: host.origin, headers: { authorization: `Bearer ${host.token}` } })).toBe('open');
    expect(await upgrade(host.port, { headers: { authorization: 'Bearer not-the-token' } })).toBe(401);
    expect(await upgrade(host.port, { origin: host.origin })).toBe(401);
  });

  it('a new address is printed on SIGUSR2; it too opens one session, once', async () => {
    const fresh = await host.newUrl();
    expect(fresh).not.toBe(host.url);
    const first = await openAddress(fresh);
    expect(first.answer.status).toBe(303);
    expect((await get(`${host.origin}/`, { cookie: first.cookie })).status).not.toBe(401);
    expect((await get(fresh)).status).toBe(401);
    // A browser that has its session and opens a spent address again just lands on the page.
    const withSession = await get(fresh, { cookie: first.cookie });
    expect(withSession.status).toBe(303);
    expect(withSession.headers['set-cookie']).toBeUndefined();
  });
});

describe('--token-file', () => {
  let host: RunningHost;
  let file = '';
  beforeAll(async () => {
    // With --token-file the address is not on the terminal: the helper reads it from the file.
    host = await startHeadlessHostWithTokenFile();
    file = path.join(host.dataDir, 'address.env');
  });
  afterAll(async () => {
    await host?.stop();
  });

  async function startHeadlessHostWithTokenFile(): Promise<RunningHost> {
    return startHeadlessHost(
      ['--control-plane', 'http://127.0.0.1:9', '--allow-file-secret-store', '--token-file', 'TOKEN_FILE'],
      {},
      { addressFrom: 'token-file' },
    );
  }

  it('writes the address and the launch token to a 0600 file, and neither to the terminal', async () => {
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(`RUNNER_TRAY_URL=${host.url}\n`);
    expect(text).toContain(`RUNNER_TRAY_TOKEN=${host.token}\n`);
    const terminal = host.output.join('\n');
    expect(terminal).toContain(`address written to ${file}`);
    expect(terminal).not.toContain(host.token);
    expect(terminal).not.toContain('?token=');
  });

  it('SIGUSR2 writes a new address into the file, not the terminal', async () => {
    const fresh = await host.newUrl();
    expect(fresh).not.toBe(host.url);
    expect(readFileSync(file, 'utf8')).toContain(`RUNNER_TRAY_URL=${fresh}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(host.output.join('\n')).not.toContain(fresh);
    expect((await get(fresh)).status).toBe(303);
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
