import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../main/core/connectors/errors';
import { ForgeClient } from '../../../main/core/operator/forge-client';
import { startStub, type StubAnswer, type StubServer } from './stub-server';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(async () => {
  await stub.close();
});
beforeEach(() => {
  stub.routes.clear();
  stub.seen.length = 0;
});

const TOKEN = 'oat_access-token-that-must-never-show-0123456789';
const LIST = '/api/commands/software_factory.request.list';
const PAUSE = '/api/commands/software_factory.request.pause';

function forge(): ForgeClient {
  return new ForgeClient({ baseUrl: stub.origin, knownSecrets: () => [TOKEN] });
}

function summary(overrides: Record<string, unknown> = {}) {
  return {
    id: randomUUID(),
    software_project_id: randomUUID(),
    title: 'Add invoice export',
    status: 'in_progress',
    source_channel: 'ui',
    current_phase: 'build',
    inferred_risk: 'medium',
    automation_mode: 'plan_only',
    max_iterations: null,
    max_wall_clock_seconds: null,
    cost_budget_usd: null,
    iterations_used: 0,
    created_at: '2026-12-01T10:00:00.000Z',
    ...overrides,
  };
}

async function rejection(promise: Promise<unknown>): Promise<ConnectorError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConnectorError);
  return error as ConnectorError;
}

const list = (answer: StubAnswer) => {
  stub.routes.set(`POST ${LIST}`, answer);
  return forge().command('software_factory.request.list', { limit: 50 }, TOKEN);
};

describe('Forge client', () => {
  it('sends the command with the bearer and parses the output, tolerating extra fields', async () => {
    const row = summary({ extra_field: 'ignored' });
    const answer = await list({ status: 200, json: { output: { requests: [row] }, meta: 1 } });
    expect(answer.kind).toBe('output');
    if (answer.kind === 'output') expect(answer.output.requests[0]).toMatchObject({ id: row.id, title: 'Add invoice export' });
    const sent = stub.seen[0]!;
    expect(sent.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(sent.body)).toEqual({ input: { limit: 50 } });
  });

  it.each([
    ['a wrong shape', { status: 200, json: { output: { requests: [{ id: 'not-a-uuid' }] } } }, 'invalid_response'],
    ['a missing envelope', { status: 200, json: { requests: [] } }, 'invalid_response'],
    ['an unknown status', { status: 200, json: { output: { requests: [summary({ status: 'exploded' })] } } }, 'invalid_response'],
    ['invalid JSON', { status: 200, raw: '{"output": {"requests": [' }, 'invalid_response'],
    ['an empty 200', { status: 200, raw: '' }, 'invalid_response'],
    ['a 500', { status: 500, raw: '<html>oops</html>' }, 'server'],
    ['a 502 with JSON', { status: 502, json: { error: 'bad_gateway' } }, 'server'],
    ['a dropped connection', { drop: true as const }, 'network'],
    ['a 401', { status: 401, json: { error: 'invalid_token' } }, 'unauthorized'],
    ['a 404', { status: 404, json: { error: 'unknown_command' } }, 'not_found'],
  ])('fails cleanly on %s', async (_name, answer, kind) => {
    expect((await rejection(list(answer as StubAnswer))).kind).toBe(kind);
  });

  it('returns a confirmation handoff on 202, and refuses a malformed one', async () => {
    const id = randomUUID();
    const handoff = { status: 'confirmation_required', confirmation: { id: 'c1', url: `${stub.origin}/confirm/c1`, expires_at: '2026-12-01T10:10:00.000Z' } };
    stub.routes.set(`POST ${PAUSE}`, { status: 202, json: handoff });
    expect(await forge().command('software_factory.request.pause', { build_request_id: id }, TOKEN)).toEqual({ kind: 'handoff', handoff });
    stub.routes.set(`POST ${PAUSE}`, { status: 202, json: { status: 'confirmation_required' } });
    expect((await rejection(forge().command('software_factory.request.pause', { build_request_id: id }, TOKEN))).kind).toBe('invalid_response');
  });

  it("carries the server's own one line for 403 and 409, clipped and redacted", async () => {
    const id = randomUUID();
    stub.routes.set(`POST ${PAUSE}`, {
      status: 403,
      json: { error: 'forbidden', message: 'software_factory.request.pause requires the tenant_admin role (you are member)' },
    });
    const forbidden = await rejection(forge().command('software_factory.request.pause', { build_request_id: id }, TOKEN));
    expect(forbidden).toMatchObject({ kind: 'rejected', status: 403, code: 'forbidden' });
    expect(forbidden.message).toBe('software_factory.request.pause requires the tenant_admin role (you are member)');
    stub.routes.set(`POST ${PAUSE}`, {
      status: 409,
      json: { error: 'invalid_transition', message: `cannot pause\na closed request ${TOKEN} ${'x'.repeat(1000)}` },
    });
    const conflict = await rejection(forge().command('software_factory.request.pause', { build_request_id: id }, TOKEN));
    expect(conflict).toMatchObject({ status: 409, code: 'invalid_transition' });
    expect(conflict.message).not.toContain('\n');
    expect(conflict.message).not.toContain(TOKEN);
    expect(conflict.message.length).toBeLessThanOrEqual(300);
    stub.routes.set(`POST ${PAUSE}`, { status: 409, raw: 'not json' });
    expect((await rejection(forge().command('software_factory.request.pause', { build_request_id: id }, TOKEN))).kind).toBe('invalid_response');
  });

  it('checks a strict input before it leaves', async () => {
    const error = await rejection(forge().command('software_factory.request.pause', { build_request_id: 'nope' }, TOKEN));
    expect(error).toMatchObject({ kind: 'rejected', code: 'invalid_request' });
    expect(stub.seen).toHaveLength(0);
  });

  it('reads who the operator is and the state of a confirmation', async () => {
    stub.routes.set('GET /api/operator/me', { status: 200, json: { operator_id: 'o1', tenant_id: 't1', name: 'Ada', role: 'tenant_admin' } });
    expect(await forge().me(TOKEN)).toEqual({ operator_id: 'o1', tenant_id: 't1', name: 'Ada', role: 'tenant_admin' });
    stub.routes.set('GET /api/operator/me', { status: 200, json: { operator_id: 'o1', tenant_id: 't1', name: 'Ada', role: 'owner' } });
    expect((await rejection(forge().me(TOKEN))).kind).toBe('invalid_response');
    stub.routes.set('GET /api/confirmations/c1', {
      status: 200,
      json: { id: 'c1', command_id: 'x', status: 'declined', expires_at: '2026-12-01T10:10:00.000Z' },
    });
    expect(await forge().confirmation('c1', TOKEN)).toMatchObject({ status: 'declined' });
    stub.routes.set('GET /api/confirmations/c1', { status: 200, json: { id: 'c1', status: 'maybe' } });
    expect((await rejection(forge().confirmation('c1', TOKEN))).kind).toBe('invalid_response');
  });
});
