import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Host } from '../../../main/core/host';
import { startHeadlessServer, type HeadlessServer } from '../../../main/headless/server';
import { firstViewRequests } from '../../../shared/first-view';
import { testLogging } from '../../helpers/test-logger';

let server: HeadlessServer | null = null;
const clients: WebSocket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  await server?.close();
  server = null;
});

/** A host that answers every command with its name and input, and fails `usage:get` by throwing. */
function echoHost(asked: { name: unknown; input: unknown }[]): Host {
  return {
    status: () => ({ state: 'idle' }),
    subscribe: () => () => undefined,
    watch: () => () => undefined,
    invoke: async (name: unknown, input: unknown) => {
      asked.push({ name, input });
      if (name === 'usage:get') throw new Error('boom');
      return { ok: true, value: { name, input } };
    },
  } as unknown as Host;
}

type Frame = { type: string; command?: string; input?: unknown; result?: unknown };

/** Connects as a script (Bearer) to `path` and collects frames until `count` came or the socket closed. */
function connect(path: string, count: number): Promise<{ frames: Frame[]; status?: number }> {
  const ws = new WebSocket(`ws://127.0.0.1:${server!.port}${path}`, { headers: { authorization: `Bearer ${server!.scriptToken}` } });
  clients.push(ws);
  const frames: Frame[] = [];
  return new Promise((resolve, reject) => {
    ws.on('unexpected-response', (_req, res) => resolve({ frames, status: res.statusCode ?? 0 }));
    ws.on('error', reject);
    ws.on('open', () => {
      if (count === 0) ws.send(JSON.stringify({ id: 1, command: 'app:info', input: {} }));
    });
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as Frame;
      frames.push(frame);
      if (frames.length === Math.max(count, 1)) resolve({ frames });
    });
  });
}

describe('the first view pushed on a window socket', () => {
  it('pushes every first answer of the named profile unasked, a host failure as an error result', async () => {
    const asked: { name: unknown; input: unknown }[] = [];
    server = await startHeadlessServer({ host: echoHost(asked), staticDir: '/nonexistent', port: 0, log: testLogging().log });
    const expected = firstViewRequests('lab');
    const { frames } = await connect('/ws?profile=lab', expected.length);
    expect(frames.every((f) => f.type === 'first')).toBe(true);
    const byCommand = new Map(frames.map((f) => [f.command, f]));
    for (const { command, input } of expected) {
      const frame = byCommand.get(command)!;
      expect(frame.input).toEqual(input);
      if (command === 'usage:get') expect(frame.result).toMatchObject({ ok: false, error: { code: 'internal' } });
      else expect(frame.result).toEqual({ ok: true, value: { name: command, input } });
    }
    expect(new Set(asked.map((a) => a.name))).toEqual(new Set(expected.map((r) => r.command)));
    expect(asked).toHaveLength(expected.length);
  });

  it('pushes nothing to a socket that names no profile (a script): it answers what is asked', async () => {
    const asked: { name: unknown; input: unknown }[] = [];
    server = await startHeadlessServer({ host: echoHost(asked), staticDir: '/nonexistent', port: 0, log: testLogging().log });
    const { frames } = await connect('/ws', 0);
    expect(frames).toEqual([{ type: 'result', id: 1, result: { ok: true, value: { name: 'app:info', input: {} } } }]);
    expect(asked).toHaveLength(1);
  });

  it('refuses a socket whose profile is not a profile id', async () => {
    server = await startHeadlessServer({ host: echoHost([]), staticDir: '/nonexistent', port: 0, log: testLogging().log });
    await expect(connect('/ws?profile=..%2Fetc', 1)).resolves.toEqual({ frames: [], status: 400 });
  });
});
