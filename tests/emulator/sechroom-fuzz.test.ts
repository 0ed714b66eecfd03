import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchSechroom, type SechroomEmu } from './sechroom-helpers';

let emu: SechroomEmu;
afterAll(() => emu.close());

let ids: Record<string, string>;
let headers: Record<string, string>;

beforeAll(async () => {
  emu = await launchSechroom({ seed: 'demo' });
  const inst = await emu.register('lane-a', { claimedCapabilityKeys: ['ui'] });
  const task = emu.sechroom.listTasks()[0]!;
  const claim = await emu.claimHead(inst.id);
  ids = { instance: inst.id, task: task.memoryId, lease: claim.lease.id, plan: task.decompositionId, brief: task.briefId! };
  headers = { authorization: `Bearer ${emu.session.token}`, tenant: emu.session.tenant, 'x-sechroom-surface': 'cli' };
});

const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const wrongTypes = {
  instanceKey: 5,
  ttlSeconds: 'x',
  idempotencyKey: [],
  generationId: {},
  executorInstanceId: null,
  claimToken: 7,
  tokenVersion: 'one',
  verdict: 'great',
  text: 9,
  source: [],
  title: 7,
  events: 'x',
  reasonCode: 1,
  to: 'status:x',
  notes: 3,
  enabled: 'no',
  operator_id: 5,
  ttl_ms: -1,
  slug: '../x',
  version: [],
  components: 'x',
  lane: 7,
  decomposition_id: 3,
  context_pack: 'x',
  status: 'nope',
  brief_id: [],
  reason: 12,
  leaseTtlMs: 'x',
  min_ms: 'x',
};

const MALFORMED: Array<{ label: string; raw: string; type?: string }> = [
  { label: 'invalid JSON', raw: '{"a": ' },
  { label: 'bare string', raw: '"hello"' },
  { label: 'number', raw: '123' },
  { label: 'null', raw: 'null' },
  { label: 'array', raw: '[{"instanceKey":"x"}]' },
  { label: 'deep nesting', raw: deep(3000) },
  { label: '__proto__ key', raw: '{"__proto__":{"polluted":true},"instanceKey":"x"}' },
  { label: 'nested __proto__', raw: '{"events":[{"__proto__":{"polluted":true}}]}' },
  { label: 'constructor.prototype', raw: '{"constructor":{"prototype":{"polluted":true}}}' },
  { label: 'form junk', raw: 'a=%ZZ&__proto__=1', type: 'application/x-www-form-urlencoded' },
  { label: 'text/plain', raw: 'just text', type: 'text/plain' },
];
const WRONG_VALUES: Array<{ label: string; raw: string }> = [
  { label: 'wrong types', raw: JSON.stringify(wrongTypes) },
  { label: 'all nulls', raw: JSON.stringify(Object.fromEntries(Object.keys(wrongTypes).map((k) => [k, null]))) },
  { label: 'huge strings', raw: JSON.stringify(Object.fromEntries(Object.keys(wrongTypes).map((k) => [k, 'x'.repeat(5_000)]))) },
];
/**
 * Routes whose body is `{}` by contract (the seed sends `{}`) or all-optional, so well-formed junk may pass;
 * return-for-revision takes any 5,000-character `notes`.
 */
const LENIENT = new Set([
  '/sechroom/me/executor-instances/:id',
  '/sechroom/decompositions/:id/resume',
  '/sechroom/decompositions/:id/accept',
  '/sechroom/me/executor-instances/:id/refresh',
  '/sechroom/decompositions/:id/return-for-revision',
]);
const LAST = ['/_emulator/sechroom/seed/demo', '/_emulator/sechroom/leases/:id/expire', '/sechroom/work-briefs/:id/cancel'];

function fill(pattern: string): string {
  return pattern
    .replace('/me/executor-instances/:id', `/me/executor-instances/${ids.instance}`)
    .replace('/executor-task-leases/:id', `/executor-task-leases/${ids.lease}`)
    .replace('/leases/:id', `/leases/${ids.lease}`)
    .replace('/tasks/:id', `/tasks/${ids.task}`)
    .replace('/decompositions/:id', `/decompositions/${ids.plan}`)
    .replace('/work-briefs/:id', `/work-briefs/${ids.brief}`)
    .replace(':slug', 'acme-billing')
    .replace(':version', '3');
}

async function send(method: string, path: string, raw?: string, type = 'application/json') {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: { ...headers, ...(raw !== undefined ? { 'content-type': type } : {}) },
    ...(raw !== undefined ? { body: raw } : {}),
    redirect: 'manual',
  });
  await res.arrayBuffer();
  return res.status;
}

describe('fuzz: hostile input on every Sechroom route', () => {
  it('answers every malformed or hostile body with a 4xx and keeps serving', async () => {
    const all = (await (await fetch(`${emu.url}/_emulator`)).json()).routes as Array<{ method: string; pattern: string }>;
    const routes = all.filter((r) => r.pattern.startsWith('/sechroom') || r.pattern.startsWith('/_emulator/sechroom'));
    expect(routes.length).toBeGreaterThan(40);
    const ordered = [...routes.filter((r) => !LAST.includes(r.pattern)), ...routes.filter((r) => LAST.includes(r.pattern))];
    const failures: string[] = [];
    let requests = 0;
    for (const route of ordered) {
      const path = fill(route.pattern);
      if (route.method === 'GET') {
        const status = await send('GET', `${path}?status=__proto__&page=-1&pageSize=abc&briefId=${'x'.repeat(5000)}&instance_id=%ZZ`);
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
        if (status >= 500 || status === 0 || (!refused && !LENIENT.has(route.pattern)))
          failures.push(`${route.method} ${route.pattern} ${body.label} → ${status}`);
      }
    }
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(300);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await emu.wl('/me')).status).toBe(200);
  });

  it('refuses an oversized body with 413 on the executor paths', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(1024 * 1024) });
    for (const path of [
      `/sechroom/me/executor-task-leases/${ids.lease}/complete`,
      `/sechroom/decompositions/${ids.plan}/run/telemetry`,
      '/_emulator/sechroom/tasks',
    ]) {
      expect(await send('POST', path, big), path).toBe(413);
    }
  });
});
