// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWsBridge, NO_WINDOW_REASON, probeCloseCause, RESTARTED_REASON, storedWindowKey, type CloseCause } from '../../renderer/src/bridge/ws-bridge';
import { WINDOW_KEY_STORAGE } from '../../shared/window-session';
import type { ConnectionState } from '../../renderer/src/bridge/types';

/** A WebSocket stand-in the test opens and closes by hand. */
class FakeSocket {
  static OPEN = 1;
  static instances: FakeSocket[] = [];
  readyState = 0;
  onopen: (() => void) | null = null;
  onclose: (() => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  constructor(
    readonly url: string,
    readonly protocols?: string[],
  ) {
    FakeSocket.instances.push(this);
  }
  send(): void {}
  open(): void {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.();
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.();
  }
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('the headless window bridge', () => {
  beforeEach(() => {
    FakeSocket.instances = [];
    vi.stubGlobal('WebSocket', FakeSocket);
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  function start(causes: CloseCause[]) {
    const states: ConnectionState[] = [];
    const probe = vi.fn(async () => causes.shift() ?? 'unreachable');
    const bridge = createWsBridge('ws://127.0.0.1:1/ws', probe);
    bridge.onConnection((s) => states.push(s));
    bridge.connect();
    return { states, probe };
  }

  it('carries no token in the socket address (the session cookie goes by itself)', () => {
    start([]);
    expect(FakeSocket.instances[0]?.url).toBe('ws://127.0.0.1:1/ws');
  });

  it('retries a host it cannot reach, with the reason', async () => {
    const { states } = start(['unreachable']);
    FakeSocket.instances[0]!.open();
    FakeSocket.instances[0]!.drop();
    await flush();
    expect(states.at(-1)).toMatchObject({ state: 'reconnecting', reason: 'Lost the connection to the host.' });
  });

  it('gives up for good, saying the host restarted, when the host no longer knows the session', async () => {
    vi.useFakeTimers();
    const { states } = start(['session-refused']);
    FakeSocket.instances[0]!.open();
    FakeSocket.instances[0]!.drop();
    await vi.runAllTimersAsync();
    expect(states.at(-1)).toEqual({ state: 'refused', reason: RESTARTED_REASON, restarted: true });
    // No retry is scheduled: the tab keeps saying so instead of trying for ever.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeSocket.instances).toHaveLength(1);
  });

  it("offers the tab's window key as a subprotocol beside runner-tray, never in the address", () => {
    const bridge = createWsBridge('ws://127.0.0.1:1/ws', async () => 'other', undefined, 'k'.repeat(43));
    bridge.connect();
    expect(FakeSocket.instances[0]?.url).toBe('ws://127.0.0.1:1/ws');
    expect(FakeSocket.instances[0]?.protocols).toEqual(['runner-tray', `rt-key.${'k'.repeat(43)}`]);
  });

  it('a tab without a window key opens no socket and says why, once', () => {
    const states: ConnectionState[] = [];
    const bridge = createWsBridge('ws://127.0.0.1:1/ws', async () => 'other', undefined, null);
    bridge.onConnection((s) => states.push(s));
    bridge.connect();
    expect(FakeSocket.instances).toHaveLength(0);
    expect(states.at(-1)).toEqual({ state: 'refused', reason: NO_WINDOW_REASON });
  });

  it('the close probe sends the window key, so a host that does not know this window answers 401', async () => {
    const fetchFn = vi.fn(async (_url: string, _init?: RequestInit) => new Response(null, { status: 401 }));
    expect(await probeCloseCause(fetchFn as unknown as typeof fetch, 'abc')).toBe('session-refused');
    expect(fetchFn.mock.calls[0]?.[1]?.headers).toEqual({ 'x-runner-tray-window': 'abc' });
    expect(await probeCloseCause((async () => new Response(null, { status: 200 })) as unknown as typeof fetch, 'abc')).toBe('other');
    expect(await probeCloseCause((async () => Promise.reject(new TypeError('failed'))) as unknown as typeof fetch, 'abc')).toBe('unreachable');
  });

  it('a close probe the host never answers counts as unreachable once its bound passes', async () => {
    vi.useFakeTimers();
    try {
      let aborted = false;
      const hanging = ((_url: string, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => {
            aborted = true;
            reject(new DOMException('aborted', 'AbortError'));
          }),
        )) as unknown as typeof fetch;
      const cause = probeCloseCause(hanging, 'abc');
      await vi.advanceTimersByTimeAsync(2_999);
      expect(aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await cause).toBe('unreachable');
    } finally {
      vi.useRealTimers();
    }
  });

  it("reads the browser's key for this host from localStorage, and none when storage is empty or throws", () => {
    localStorage.setItem(WINDOW_KEY_STORAGE, 'the-key');
    expect(storedWindowKey()).toBe('the-key');
    localStorage.removeItem(WINDOW_KEY_STORAGE);
    expect(storedWindowKey()).toBeNull();
    expect(
      storedWindowKey({
        getItem: () => {
          throw new Error('denied');
        },
      }),
    ).toBeNull();
  });
});
