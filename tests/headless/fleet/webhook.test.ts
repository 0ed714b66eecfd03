import { describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../shared/contract';
import type { FetchLike } from '../../../main/core/connectors/http-json';
import { WebhookNotifier, type WebhookBody } from '../../../main/headless/fleet/webhook';
import { FakeClock } from '../../helpers/fake-clock';

const URL_CANARY = 'T000/B000/canary-hook-path-3f9a';
const HOOK = `https://hooks.example/services/${URL_CANARY}`;

function setUp(answer: (n: number) => number | Error = () => 200) {
  const clock = new FakeClock();
  const bodies: WebhookBody[] = [];
  const lines: string[] = [];
  let calls = 0;
  const fetch: FetchLike = (url, init) => {
    expect(url).toBe(HOOK);
    const status = answer(calls++);
    if (status instanceof Error) return Promise.reject(status);
    bodies.push(JSON.parse(init.body as string) as WebhookBody);
    return Promise.resolve({ status, text: () => Promise.resolve('ok') });
  };
  const notifier = new WebhookNotifier({ url: HOOK, host: 'lab-7', clock, fetch, log: (l) => lines.push(l), random: () => 0.5 });
  return { clock, bodies, lines, notifier, calls: () => calls };
}

const status = (profile: string, state: 'idle' | 'error' | 'revoked', reason: string): HostEvent => ({
  event: 'runner:status',
  payload: { state, reason, profile },
});

describe('the headless webhook', () => {
  it('tells of storage red and credentials refused once per change, in a Slack body with a structured twin', async () => {
    const { clock, bodies, notifier } = setUp();
    const full = 'Cannot write to /data/outbox: no space left on device (ENOSPC) — taking no work until it can';
    notifier.onEvents([status('lab', 'idle', 'Ready')]);
    notifier.onEvents([status('lab', 'error', full)]);
    notifier.onEvents([status('lab', 'error', full)]);
    notifier.onEvents([status('lab', 'error', 'something else')]);
    notifier.onEvents([status('lab', 'revoked', 'the control plane refused our credentials (401)')]);
    await clock.settle();
    await notifier.settled();
    expect(bodies.map((b) => b.runner_tray.kind)).toEqual(['storage-red', 'auth-expired']);
    expect(bodies[0]).toEqual({
      text: `Runner Tray on lab-7 (profile lab): ${full}`,
      runner_tray: { kind: 'storage-red', profile: 'lab', host: 'lab-7', at: new Date(clock.now()).toISOString() },
    });
  });

  it('coalesces a flood to one message per kind and profile per minute', async () => {
    const { clock, bodies, notifier } = setUp();
    const limited: HostEvent = { event: 'usage:notice', payload: { kind: 'limited', account: 'claude:default', message: 'limit', until: null } };
    for (let i = 0; i < 20; i++)
      notifier.onEvents([limited, { event: 'runner:notice', payload: { kind: 'runtime-paused', message: 'claude failed 3 times' } }]);
    await clock.settle();
    await notifier.settled();
    expect(bodies.map((b) => b.runner_tray.kind)).toEqual(['usage-limited', 'breaker-open']);
    await clock.advanceAsync(59_000);
    notifier.onEvents([limited]);
    await clock.advanceAsync(1_000);
    notifier.onEvents([limited]);
    await notifier.settled();
    expect(bodies.map((b) => b.runner_tray.kind)).toEqual(['usage-limited', 'breaker-open', 'usage-limited']);
  });

  it('retries a failing webhook with backoff a bounded number of times, then drops the message naming only the origin', async () => {
    const { clock, lines, notifier, calls } = setUp(() => new Error(`connect ECONNREFUSED for ${HOOK}`));
    notifier.notify('crash-restart', null, 'the host restarted after a crash');
    await clock.settle();
    expect(calls()).toBe(1);
    for (let i = 0; i < 10; i++) await clock.advanceAsync(30_000);
    await notifier.settled();
    expect(calls()).toBe(4);
    expect(lines).toEqual([`webhook https://hooks.example: connect ECONNREFUSED for https://hooks.example; message dropped`]);
    expect(lines.join('\n')).not.toContain(URL_CANARY);
  });

  it('does not retry a 4xx other than 429', async () => {
    const { clock, notifier, calls, lines } = setUp(() => 404);
    notifier.notify('usage-recovered', null, 'claiming resumed');
    await clock.advanceAsync(120_000, 10_000);
    await notifier.settled();
    expect(calls()).toBe(1);
    expect(lines).toEqual(['webhook https://hooks.example: answered 404; message dropped']);
  });
});
