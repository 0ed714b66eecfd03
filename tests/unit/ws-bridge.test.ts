// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createWsBridge, RESTARTED_REASON, type CloseCause } from '../../renderer/src/bridge/ws-bridge';
import type { ConnectionState } from '../../renderer/src/bridge/types';

/** A WebSocket stand-in the test opens and closes by hand. */
class FakeSocket {
  static OPEN = 1;
  static instances: FakeSocket[] = [];
  readyState = 0;
  onopen: (() => void) | null = null;
  onclose: (() => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  constructor(readonly url: string) {
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
});
