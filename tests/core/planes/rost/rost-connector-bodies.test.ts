import { describe, expect, it } from 'vitest';
import { RostRunnerConnector } from '../../../../main/core/planes/rost/rost-runner-connector';
import type { FetchLike } from '../../../../main/core/connectors/http-json';

/** A server that records what it was sent and answers from a list. */
function recording(answers: Array<{ status: number; body?: unknown }>) {
  const sent: Array<{ path: string; body: unknown }> = [];
  const fetch: FetchLike = async (input, init) => {
    sent.push({ path: new URL(input).pathname, body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined });
    const next = answers.shift() ?? { status: 200, body: {} };
    return new Response(next.body === undefined ? null : JSON.stringify(next.body), { status: next.status, headers: { 'content-type': 'application/json' } });
  };
  return { sent, fetch };
}

const creds = { runnerId: 'r1', secret: 'rsec_0123456789abcdef0123' };

describe('RostRunnerConnector bodies', () => {
  it("sends the seed's id field on start and result, and the ready runtimes on a claim", async () => {
    const server = recording([{ status: 204 }, { status: 200, body: { started: true } }, { status: 200, body: { accepted: true } }]);
    const c = new RostRunnerConnector({ baseUrl: 'https://cp.test', fetch: server.fetch });
    await c.claim(creds, { interactiveOnly: true, runtimes: ['codex'] });
    await c.start(creds, { id: 'u1', kind: 'turn_execution' });
    await c.report(creds, { id: 'w1', kind: 'work_order' }, { status: 'succeeded', summary: 'ok', idempotency_key: 'w1:1' });
    expect(server.sent).toEqual([
      { path: '/api/runner/work-orders/claim', body: { interactive_only: true, runtimes: ['codex'] } },
      { path: '/api/runner/turn-executions/u1/start', body: { turn_execution_id: 'u1' } },
      { path: '/api/runner/work-orders/w1/result', body: { status: 'succeeded', summary: 'ok', idempotency_key: 'w1:1', work_order_id: 'w1' } },
    ]);
  });

  it('words a refused start as the seed, body redacted', async () => {
    const server = recording([{ status: 409, body: { error: 'not_startable', token: creds.secret } }]);
    const c = new RostRunnerConnector({ baseUrl: 'https://cp.test', fetch: server.fetch, knownSecrets: () => [creds.secret] });
    const error = await c.start(creds, { id: 'w9', kind: 'work_order' }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/^Work order start failed 409: \{"error":"not_startable","token":"/);
    expect((error as Error).message).not.toContain(creds.secret);
  });

  it('claims a pairing by user code with the runner details', async () => {
    const server = recording([{ status: 400, body: { error: 'authorization_pending' } }]);
    const c = new RostRunnerConnector({ baseUrl: 'https://cp.test', fetch: server.fetch });
    expect(await c.pollPairingByCode({ user_code: 'BDFG-HJKL', name: 'box', platform: 'linux' })).toEqual({ kind: 'pending' });
    expect(server.sent[0]).toEqual({ path: '/api/runner/pairing/claim', body: { user_code: 'BDFG-HJKL', name: 'box', platform: 'linux' } });
  });
});
