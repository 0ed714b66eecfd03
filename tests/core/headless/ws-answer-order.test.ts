import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Host } from '../../../main/core/host';
import { startHeadlessServer, type HeadlessServer } from '../../../main/headless/server';
import type { Result } from '../../../shared/result';
import { testLogging } from '../../helpers/test-logger';

let server: HeadlessServer | null = null;
let client: WebSocket | null = null;
afterEach(async () => {
  client?.terminate();
  client = null;
  await server?.close();
  server = null;
});

/** A host whose `turns:list` answers only when the test says so; every other command at once. */
function hostWithSlowCommand() {
  let release: (value: Result<unknown>) => void = () => undefined;
  const slow = new Promise<Result<unknown>>((resolve) => (release = resolve));
  const host = {
    status: () => ({ state: 'idle' }),
    subscribe: () => () => undefined,
    watch: () => () => undefined,
    invoke: (name: unknown) => (name === 'turns:list' ? slow : Promise.resolve({ ok: true, value: name })),
  } as unknown as Host;
  return { host, release: (value: Result<unknown>) => release(value) };
}

describe('the headless bridge socket', () => {
  it('answers each command when it is done: a slow one does not hold up a fast one sent after it', async () => {
    const { host, release } = hostWithSlowCommand();
    server = await startHeadlessServer({ host, staticDir: '/nonexistent', port: 0, log: testLogging().log });
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, { headers: { authorization: `Bearer ${server.scriptToken}` } });
    client = ws;
    const answers: number[] = [];
    const frames = new Map<number, unknown>();
    const waiters = new Map<number, () => void>();
    ws.on('message', (data: Buffer) => {
      const frame = JSON.parse(data.toString('utf8')) as { type: string; id: number; result: unknown };
      if (frame.type !== 'result') return;
      answers.push(frame.id);
      frames.set(frame.id, frame.result);
      waiters.get(frame.id)?.();
    });
    const answered = (id: number) => new Promise<void>((resolve) => (frames.has(id) ? resolve() : waiters.set(id, resolve)));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });

    ws.send(JSON.stringify({ id: 1, command: 'turns:list', input: {} }));
    ws.send(JSON.stringify({ id: 2, command: 'runner:status', input: {} }));
    await answered(2);
    // The fast answer came while the slow command was still running.
    expect(answers).toEqual([2]);
    expect(frames.get(2)).toEqual({ ok: true, value: 'runner:status' });

    release({ ok: true, value: 'page' });
    await answered(1);
    expect(answers).toEqual([2, 1]);
    expect(frames.get(1)).toEqual({ ok: true, value: 'page' });
  });
});
