import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claim, launch, runnerWith, signIn } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterAll(() => emu.close());

interface Creds {
  runner: string;
  operator: string;
  mcp: string;
  cookie: string;
  unitId: string;
}
let creds: Creds;

beforeAll(async () => {
  emu = await launch({ seed: 'demo' });
  const r = await runnerWith(emu, { max_sessions: 4, alias: 'team' });
  emu.admin.enqueueTurnExecution({});
  const unit = (await claim(emu, r.secret)).json.turn_execution;
  const admin = emu.admin.listOperators().find((o) => o.role === 'tenant_admin')!;
  creds = {
    runner: r.secret,
    operator: emu.admin.issueOperatorTokens(admin.id).access_token,
    mcp: unit.mcp.token,
    cookie: await signIn(emu.url, admin.id),
    unitId: unit.id,
  };
});

const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const wrongTypes = {
  name: 1,
  platform: [],
  pairing_id: {},
  status: null,
  summary: 5,
  input: 'x',
  wait_ms: -1,
  interactive_only: 'yes',
  telemetry: 'x',
  capabilities: [1],
  jsonrpc: 2,
  method: null,
  enabled: 'no',
  title: 7,
  route: 5,
  user_code: 5,
  grant_type: 5,
  token: [],
  client_id: null,
  seed: 'all',
  build_request_id: 12,
  kind: {},
  decision: 1,
  csrf: null,
};

/** Bodies no endpoint may accept: each must get a 4xx. */
const MALFORMED: Array<{ label: string; raw: string; type?: string }> = [
  { label: 'invalid JSON', raw: '{"a": ' },
  { label: 'bare string', raw: '"hello"' },
  { label: 'number', raw: '123' },
  { label: 'null', raw: 'null' },
  { label: 'array', raw: '[{"id":1}]' },
  { label: 'deep nesting', raw: deep(3000) },
  { label: '__proto__ key', raw: '{"__proto__":{"polluted":true},"name":"x"}' },
  { label: 'nested __proto__', raw: '{"telemetry":{"__proto__":{"polluted":true}}}' },
  { label: 'constructor.prototype', raw: '{"constructor":{"prototype":{"polluted":true}}}' },
  { label: 'form junk', raw: 'a=%ZZ&code=%E0%A4%A&__proto__=1', type: 'application/x-www-form-urlencoded' },
  { label: 'text/plain', raw: 'just text', type: 'text/plain' },
];

/**
 * Well-formed objects with wrong values. A route whose schema names none of these
 * fields may legitimately ignore them (protocol bodies tolerate unknown fields);
 * no route may fail on them, and the routes below must refuse them.
 */
const WRONG_VALUES: Array<{ label: string; raw: string }> = [
  { label: 'wrong types', raw: JSON.stringify(wrongTypes) },
  { label: 'all nulls', raw: JSON.stringify(Object.fromEntries(Object.keys(wrongTypes).map((k) => [k, null]))) },
  { label: 'huge strings', raw: JSON.stringify(Object.fromEntries(Object.keys(wrongTypes).map((k) => [k, 'x'.repeat(5_000)]))) },
];
const LENIENT = new Set(['/api/runner/:kind/:id/start', '/api/runner/:kind/:id/heartbeat', '/api/runner/unpair']);

/** Destructive routes go last so they cannot cut the others' coverage short. */
const LAST = ['/api/runner/unpair', '/_emulator/reset', '/_emulator/runners/:id/revoke', '/_emulator/seed/demo', '/signout'];

function fill(pattern: string): string {
  return pattern
    .replace(':kind', 'turn-executions')
    .replace(':command_id', 'software_factory.request.pause')
    .replace(/:id/g, pattern.includes('/runner/') || pattern.includes('/units/') ? creds.unitId : crypto.randomUUID());
}

function authFor(path: string): Record<string, string> {
  const bearer = path.startsWith('/api/runner/') ? creds.runner : path.startsWith('/mcp') ? creds.mcp : path.startsWith('/api/') ? creds.operator : null;
  return { cookie: creds.cookie, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
}

async function send(method: string, path: string, raw?: string, type = 'application/json') {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { ...authFor(path), ...(raw !== undefined ? { 'content-type': type } : {}) },
    ...(raw !== undefined ? { body: raw } : {}),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  return res.status;
}

describe('fuzz: hostile input on every route', () => {
  it('answers every malformed or hostile body with a 4xx and keeps serving', async () => {
    const all = (await (await fetch(`${emu.url}/_emulator`)).json()).routes as Array<{ method: string; pattern: string; body?: string }>;
    // The Work Layer's routes are fuzzed with its own credentials in sechroom-fuzz.test.ts.
    const routes = all.filter((r) => !r.pattern.startsWith('/sechroom') && !r.pattern.startsWith('/_emulator/sechroom'));
    expect(routes.length).toBeGreaterThan(60);
    const ordered = [...routes.filter((r) => !LAST.includes(r.pattern)), ...routes.filter((r) => LAST.includes(r.pattern))];
    const failures: string[] = [];
    let requests = 0;
    for (const route of ordered) {
      const path = fill(route.pattern);
      if (route.method === 'GET') {
        const status = await send('GET', `${path}?code=%ZZ&status=__proto__&since=-1&limit=abc&unit_id=${'x'.repeat(5000)}`);
        requests++;
        if (status >= 500 || status === 0) failures.push(`GET ${route.pattern} junk query → ${status}`);
        continue;
      }
      for (const body of MALFORMED) {
        const status = await send(route.method, path, body.raw, body.type);
        requests++;
        if (status < 400 || status >= 500) failures.push(`${route.method} ${route.pattern} ${body.label} → ${status}`);
      }
      for (const body of WRONG_VALUES) {
        const status = await send(route.method, path, body.raw);
        requests++;
        const refused = status >= 400 && status < 500;
        if (status >= 500 || status === 0 || (!refused && !LENIENT.has(route.pattern))) {
          failures.push(`${route.method} ${route.pattern} ${body.label} → ${status}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(500);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await fetch(`${emu.url}/healthz`).then((r) => r.json())) as unknown).toEqual({ ok: true });
  });

  it('refuses a body past the limit on every body-taking route with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024) });
    for (const path of ['/api/runner/pairing/start', '/api/runner/heartbeat', '/api/commands/x', '/mcp', '/oauth/token', '/_emulator/turn-executions']) {
      expect(await send('POST', path, big), path).toBe(413);
    }
    expect(await send('GET', '/healthz')).toBe(200);
  });
});
