import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from '../../emulator/index';
import type { PairingClaimResponse } from '../../shared/protocol';

export interface Clock {
  now: () => number;
  advance: (ms: number) => void;
}

export function fakeClock(start = Date.parse('2026-03-01T09:00:00.000Z')): Clock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json: any;
}

export interface ApiOptions {
  method?: string;
  body?: unknown;
  /** Sent verbatim (no JSON encoding). */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

export async function api(base: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(`${base}${path}`, {
    method: opts.method ?? (body !== undefined ? 'POST' : 'GET'),
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    redirect: 'manual',
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** A started emulator plus its helpers; close it in afterEach/afterAll. */
export async function launch(opts: StartEmulatorOptions = {}): Promise<RunningEmulator & { call: (path: string, o?: ApiOptions) => Promise<ApiResponse> }> {
  const emu = await startEmulator({ sweepIntervalMs: 0, ...opts });
  return Object.assign(emu, { call: (path: string, o?: ApiOptions) => api(emu.url, path, o) });
}

/** A runner that already has credentials, with its heartbeat telemetry applied. */
export async function runnerWith(
  emu: RunningEmulator,
  telemetry: { max_sessions?: number; alias?: string; paused?: boolean } = {},
  name = 'runner',
): Promise<PairingClaimResponse & { secret: string }> {
  const creds = emu.admin.createRunner({ name });
  const res = await api(emu.url, '/api/runner/heartbeat', {
    token: creds.runner_secret,
    body: {
      name,
      paused: telemetry.paused ?? false,
      telemetry: {
        max_sessions: telemetry.max_sessions ?? 1,
        active_sessions: 0,
        ...(telemetry.alias ? { model_account: { alias: telemetry.alias, state: 'ok' } } : {}),
      },
    },
  });
  if (res.status !== 200) throw new Error(`heartbeat failed ${res.status} ${res.text}`);
  return { ...creds, secret: creds.runner_secret };
}

export const claim = (emu: RunningEmulator, secret: string, body: Record<string, unknown> = {}, signal?: AbortSignal) =>
  api(emu.url, '/api/runner/work-orders/claim', { token: secret, body, signal });

export const segment = (kind: 'turn_execution' | 'work_order') => (kind === 'turn_execution' ? 'turn-executions' : 'work-orders');

/** Claims, then starts, the next unit; fails the test if there is none. */
export async function claimAndStart(emu: RunningEmulator, secret: string, body: Record<string, unknown> = {}) {
  const res = await claim(emu, secret, body);
  if (res.status !== 200) throw new Error(`claim answered ${res.status}`);
  const kind = res.json.turn_execution ? 'turn_execution' : 'work_order';
  const unit = res.json[kind];
  const started = await api(emu.url, `/api/runner/${segment(kind)}/${unit.id}/start`, { token: secret, body: {} });
  if (started.status !== 200) throw new Error(`start answered ${started.status} ${started.text}`);
  return { kind: kind as 'turn_execution' | 'work_order', unit };
}

/** Signs in on the dev sign-in page and returns the session cookie. */
export async function signIn(base: string, operatorId: string): Promise<string> {
  const res = await fetch(`${base}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ operator_id: operatorId, next: '/' }),
    redirect: 'manual',
  });
  const cookie = res.headers.get('set-cookie');
  if (res.status !== 303 || !cookie) throw new Error(`sign-in failed ${res.status}`);
  return cookie.split(';')[0]!;
}

export function csrfFrom(markup: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(markup);
  if (!match) throw new Error('no csrf token on page');
  return match[1]!;
}

export async function postForm(base: string, path: string, cookie: string, fields: Record<string, string>) {
  const res = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text() };
}

export async function getPage(base: string, path: string, cookie?: string) {
  const res = await fetch(`${base}${path}`, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers };
}
