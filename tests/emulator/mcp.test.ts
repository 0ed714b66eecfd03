import { afterEach, describe, expect, it } from 'vitest';
import { claim, fakeClock, launch, runnerWith } from './helpers';

type Emu = Awaited<ReturnType<typeof launch>>;
let emu: Emu;
afterEach(() => emu?.close());

/** `id: null` builds a notification. */
const rpc = (method: string, params?: Record<string, unknown>, id: number | null = 1) => ({
  jsonrpc: '2.0',
  ...(id === null ? {} : { id }),
  method,
  ...(params ? { params } : {}),
});

async function claimedUnit(opts: Parameters<typeof launch>[0] = {}) {
  emu = await launch(opts);
  const r = await runnerWith(emu);
  const queued = emu.admin.enqueueTurnExecution({ timeout_ms: 10_000 });
  const unit = (await claim(emu, r.secret)).json.turn_execution;
  const mcp = (body: unknown, token: string = unit.mcp.token) => emu.call('/mcp', { token, body, headers: { accept: 'application/json, text/event-stream' } });
  return { r, unit, queued, mcp };
}

describe('MCP endpoint', () => {
  it('speaks initialize, tools/list and tools/call, and records report_progress with the unit id', async () => {
    const { unit, mcp } = await claimedUnit();
    const init = await mcp(rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } }));
    expect(init.json.result).toMatchObject({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'runner-tray-emulator' } });
    expect((await mcp(rpc('notifications/initialized', undefined, null))).status).toBe(202);
    const tools = await mcp(rpc('tools/list', {}, 2));
    expect(tools.json.result.tools.map((t: { name: string }) => t.name)).toContain('report_progress');
    const call = await mcp(rpc('tools/call', { name: 'report_progress', arguments: { message: 'half way', percent: 50 } }, 3));
    expect(call.json).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'progress recorded (50%)' }] } });
    const calls = emu.admin.listMcpCalls({ tool: 'report_progress' });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ unit_id: unit.id, arguments: { message: 'half way', percent: 50 } });
  });

  it('reports bad tool arguments as a tool error and unknown tools and methods as JSON-RPC errors', async () => {
    const { mcp } = await claimedUnit();
    const bad = await mcp(rpc('tools/call', { name: 'report_progress', arguments: { percent: 150 } }));
    expect(bad.json.result.isError).toBe(true);
    expect(bad.json.result.content[0].text).toMatch(/message/);
    expect((await mcp(rpc('tools/call', { name: 'rm_rf', arguments: {} }))).json.error.code).toBe(-32602);
    expect((await mcp(rpc('resources/list'))).json.error.code).toBe(-32601);
    const invalid = await mcp({ jsonrpc: '1.0', method: 5 });
    expect([invalid.status, invalid.json.error.code]).toEqual([400, -32600]);
    expect((await mcp([rpc('ping')])).status).toBe(400);
  });

  it('answers GET and DELETE with 405', async () => {
    const { unit } = await claimedUnit();
    for (const method of ['GET', 'DELETE']) {
      const res = await emu.call('/mcp', { method, token: unit.mcp.token });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('rejects a missing, unknown, foreign or expired token', async () => {
    const clock = fakeClock();
    const { r, mcp } = await claimedUnit({ now: clock.now });
    expect((await emu.call('/mcp', { body: rpc('ping') })).status).toBe(401);
    expect((await mcp(rpc('ping'), 'mcp_not-a-real-token')).status).toBe(401);
    expect((await mcp(rpc('ping'), r.secret)).status).toBe(401); // a runner secret is not an MCP token
    expect((await mcp(rpc('ping'))).status).toBe(200);
    clock.advance(10_000 + 60_001);
    expect((await mcp(rpc('ping'))).status).toBe(401);
  });

  it('revokes a unit token once the unit has a result', async () => {
    const { r, unit, mcp } = await claimedUnit();
    await emu.call(`/api/runner/turn-executions/${unit.id}/start`, { token: r.secret, body: {} });
    await emu.call(`/api/runner/turn-executions/${unit.id}/result`, { token: r.secret, body: { status: 'succeeded', summary: 'ok' } });
    const res = await mcp(rpc('ping'));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/invalid_token/);
  });
});
