// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWsBridge } from '../../renderer/src/bridge/ws-bridge';
import type { Bridge } from '../../renderer/src/bridge/types';
import { useHostStore, initialHostState } from '../../renderer/src/store';
import { loadSnapshot } from '../../renderer/src/store/sync';
import { firstViewRequests, requestKey } from '../../shared/first-view';

/** A WebSocket stand-in: the test opens it, pushes frames into it and reads what was sent. */
class FakeSocket {
  static OPEN = 1;
  static instances: FakeSocket[] = [];
  readyState = 0;
  sent: { id: number; command: string; input: unknown }[] = [];
  onopen: (() => void) | null = null;
  onclose: (() => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.instances.push(this);
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as { id: number; command: string; input: unknown });
  }
  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  push(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.();
  }
}

const socket = () => FakeSocket.instances.at(-1)!;

function connected(profile = 'lab'): Bridge {
  const bridge = createWsBridge(
    'ws://127.0.0.1:1/ws',
    async () => 'other',
    () => profile,
  );
  bridge.connect();
  socket().open();
  return bridge;
}

beforeEach(() => {
  FakeSocket.instances = [];
  vi.stubGlobal('WebSocket', FakeSocket);
  useHostStore.setState(initialHostState, true);
});
afterEach(() => vi.unstubAllGlobals());

describe("the window's first answers, pushed by the host", () => {
  it('names the profile the window shows in the socket address, and opens one socket however often connect is called', () => {
    const bridge = createWsBridge(
      'ws://127.0.0.1:1/ws',
      async () => 'other',
      () => 'lab',
    );
    bridge.connect();
    bridge.connect();
    expect(FakeSocket.instances.map((s) => s.url)).toEqual(['ws://127.0.0.1:1/ws?profile=lab']);
  });

  it('answers an ask with the pushed answer, sending nothing; the same ask again goes to the host', async () => {
    const bridge = connected();
    socket().push({ type: 'first', command: 'app:info', input: {}, result: { ok: true, value: { name: 'pushed' } } });
    await expect(bridge.invoke('app:info')).resolves.toEqual({ ok: true, value: { name: 'pushed' } });
    expect(socket().sent).toEqual([]);
    void bridge.invoke('app:info');
    expect(socket().sent.map((f) => f.command)).toEqual(['app:info']);
  });

  it('pushed answers are kept 5 s for an ask, also one that lands late: a later ask goes to the host', () => {
    vi.useFakeTimers();
    const bridge = connected();
    socket().push({ type: 'first', command: 'app:info', input: {}, result: { ok: true, value: 'then' } });
    vi.advanceTimersByTime(5_001);
    socket().push({ type: 'first', command: 'usage:get', input: {}, result: { ok: true, value: 'late' } });
    void bridge.invoke('app:info');
    void bridge.invoke('usage:get');
    expect(socket().sent.map((f) => f.command)).toEqual(['app:info', 'usage:get']);
    vi.useRealTimers();
  });

  it('an ask made before its pushed answer lands waits for it instead of asking the host', async () => {
    const bridge = connected();
    const asked = bridge.invoke('turns:list', { limit: 100 });
    expect(socket().sent).toEqual([]);
    socket().push({ type: 'first', command: 'turns:list', input: { limit: 100 }, result: { ok: true, value: 'page' } });
    await expect(asked).resolves.toEqual({ ok: true, value: 'page' });
  });

  it('an ask with another input, or for another profile, goes to the host', () => {
    const bridge = connected('lab');
    void bridge.invoke('turns:list', { offset: 100, limit: 100 });
    void bridge.invoke('runner:snapshot', { profile: 'default' });
    expect(socket().sent.map((f) => [f.command, f.input])).toEqual([
      ['turns:list', { offset: 100, limit: 100 }],
      ['runner:snapshot', { profile: 'default' }],
    ]);
  });

  it('a pushed answer that does not fit the contract is an error, not data', async () => {
    const bridge = connected();
    socket().push({ type: 'first', command: 'usage:get', input: {}, result: { value: 1 } });
    const answer = await bridge.invoke('usage:get');
    expect(answer.ok).toBe(false);
  });

  it('asks still waiting when the socket closes fail as disconnected', async () => {
    const bridge = connected();
    const asked = bridge.invoke('log:recent', { limit: 200 });
    socket().drop();
    await expect(asked).resolves.toMatchObject({ ok: false, error: { code: 'disconnected' } });
  });

  it('the window asks for exactly what the host pushes, so none of its first asks goes out', async () => {
    const bridge = connected('default');
    const asks: string[] = [];
    const recording: Bridge = { ...bridge, invoke: (name, input) => (asks.push(requestKey(name, input)), bridge.invoke(name, input)) };
    const done = loadSnapshot(recording);
    for (const { command, input } of firstViewRequests('default')) {
      socket().push({ type: 'first', command, input, result: { ok: false, error: { code: 'x', message: 'not in this test' } } });
    }
    await done;
    expect(asks.sort()).toEqual(
      firstViewRequests('default')
        .map((r) => requestKey(r.command, r.input))
        .sort(),
    );
    expect(socket().sent).toEqual([]);
  });
});
