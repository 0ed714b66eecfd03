import { describe, expect, it } from 'vitest';
import { QuitPolicy, SECOND_INTERRUPT_MS } from '../../main/core/quit-policy';
import { FakeClock } from '../helpers/fake-clock';
import { testLogging } from '../helpers/test-logger';

/** A host whose running turns (in any of its profiles) finish when the test says so. */
function host(active: number) {
  const clock = new FakeClock();
  let running = active;
  let idle: (() => void) | null = null;
  const stopping: ({ mode: string } | null)[] = [];
  let shutdowns = 0;
  const policy = new QuitPolicy({
    clock,
    log: testLogging().log,
    work: {
      get activeCount() {
        return running;
      },
      holdClaims: () => {},
      releaseClaims: () => {},
      cancelAll: () => {
        const n = running;
        running = 0;
        idle?.();
        return n;
      },
      whenIdle: () => (running === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve))),
    },
    setStopping: (s) => stopping.push(s && { mode: s.mode }),
    drainLimitMs: () => 300_000,
    shutdown: async () => {
      shutdowns++;
    },
    undelivered: () => 0,
  });
  return { clock, policy, stopping, shutdowns: () => shutdowns };
}

describe('Ctrl-C through the quit policy', () => {
  it('the first drains (counting every profile of the host), a second within 3 s stops now', async () => {
    const h = host(2);
    expect(h.policy.interrupt()).toEqual({ kind: 'drain', active: 2, limitMs: 300_000 });
    h.clock.advance(SECOND_INTERRUPT_MS - 1);
    expect(h.policy.interrupt()).toEqual({ kind: 'now' });
    await h.clock.settle();
    expect(h.stopping.at(-1)).toEqual({ mode: 'now' });
    expect(h.shutdowns()).toBe(1);
  });

  it('a second Ctrl-C after 3 s says what it still waits for and arms the next one', () => {
    const h = host(1);
    h.policy.interrupt();
    h.clock.advance(SECOND_INTERRUPT_MS);
    expect(h.policy.interrupt()).toEqual({ kind: 'still-draining', active: 1, remainingMs: 300_000 - SECOND_INTERRUPT_MS });
    h.clock.advance(1000);
    expect(h.policy.interrupt()).toEqual({ kind: 'now' });
  });

  it('after "Keep running" the next single Ctrl-C drains again, it does not stop now', async () => {
    const h = host(1);
    const first = h.policy.quit('after-turns');
    h.policy.interrupt();
    expect(h.policy.cancel()).toBe(true);
    expect(await first).toEqual({ kind: 'canceled' });
    h.clock.advance(100);
    expect(h.policy.interrupt()).toEqual({ kind: 'drain', active: 1, limitMs: 300_000 });
    expect(h.stopping.at(-1)).toEqual({ mode: 'after-turns' });
    expect(h.shutdowns()).toBe(0);
  });

  it('a quit begun in the window: the first Ctrl-C arms, it does not stop now', () => {
    const h = host(1);
    void h.policy.quit('after-turns');
    expect(h.policy.interrupt()).toMatchObject({ kind: 'still-draining', active: 1 });
  });
});
