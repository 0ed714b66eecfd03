import { afterEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type * as Ws from 'ws';
import type { Host } from '../../../main/core/host';
import { startHeadlessServer, type HeadlessServer } from '../../../main/headless/server';
import { testLogging } from '../../helpers/test-logger';

// Counts the WebSocket servers the host makes; the client side stays the real ws.
const made = vi.hoisted(() => ({ count: 0 }));
vi.mock('ws', async (importOriginal) => {
  const real = await importOriginal<typeof Ws>();
  class CountedServer extends real.WebSocketServer {
    constructor(...args: ConstructorParameters<typeof real.WebSocketServer>) {
      super(...args);
      made.count++;
    }
  }
  return { ...real, WebSocketServer: CountedServer };
});

let server: HeadlessServer | null = null;
const clients: WebSocket[] = [];
afterEach(async () => {
  clients.splice(0).forEach((c) => c.terminate());
  await server?.close();
  server = null;
});

const host = {
  status: () => ({ state: 'idle' }),
  subscribe: () => () => undefined,
  watch: () => () => undefined,
  invoke: (name: unknown) => Promise.resolve({ ok: true, value: name }),
} as unknown as Host;

async function connect(port: number, token: string): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`, { headers: { authorization: `Bearer ${token}` } });
  clients.push(ws);
  await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
  return ws;
}

describe('the headless WebSocket server', () => {
  it('is made when the first window connects, once, and that window is served', async () => {
    made.count = 0;
    server = await startHeadlessServer({ host, staticDir: '/nonexistent', port: 0, log: testLogging().log });
    // A host nobody opens has no WebSocket server (ws is not even loaded).
    expect(made.count).toBe(0);

    const first = await connect(server.port, server.scriptToken);
    expect(made.count).toBe(1);
    const answer = new Promise<unknown>((resolve) => first.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')))));
    first.send(JSON.stringify({ id: 7, command: 'runner:status', input: {} }));
    expect(await answer).toEqual({ type: 'result', id: 7, result: { ok: true, value: 'runner:status' } });

    await connect(server.port, server.scriptToken);
    expect(made.count).toBe(1);
  });
});
