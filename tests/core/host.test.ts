import { describe, expect, it } from 'vitest';
import type { HostEvent } from '../../shared/contract';
import { EventHub } from '../../main/core/event-hub';
import type { Handlers } from '../../main/core/base/dispatch';
import { createHost } from '../../main/core/host';
import type { RunnerStatus } from '../../shared/status';
import { FakeClock } from '../helpers/fake-clock';
import { testLogging } from '../helpers/test-logger';

function makeHost(clock = new FakeClock()) {
  const logging = testLogging();
  const hub = new EventHub(clock);
  const startedAt = clock.now();
  let status: RunnerStatus = { state: 'unpaired', reason: 'This machine is not paired with a control plane yet.' };
  const handlers = {
    'app:info': () => ({
      name: 'Runner Tray',
      version: '1.2.3',
      mode: 'headless' as const,
      platform: 'linux',
      arch: 'x64',
      hostname: 'box',
      runtimeVersions: { node: '20.0.0', electron: null, chrome: null },
      startedAt: new Date(startedAt).toISOString(),
      uptimeMs: clock.now() - startedAt,
      dataDir: '/data',
      logDir: '/data/logs',
    }),
    'runner:status': () => status,
    'log:recent': (input: { limit?: number } | undefined) => logging.feed.recent(input?.limit ?? 200),
  } as unknown as Handlers;
  const service = {
    starts: 0,
    stops: 0,
    start: async () => {
      service.starts++;
    },
    stop: async () => {
      service.stops++;
    },
  };
  const host = createHost({
    hub,
    handlers,
    log: logging.log,
    logFeed: logging.feed,
    status: () => status,
    profileStatuses: () => [{ ...status, profile: 'default' }],
    services: [service],
  });
  return { host, clock, logging, service, setStatus: (s: RunnerStatus) => (status = s) };
}

describe('host commands through the contract', () => {
  it('answers app:info with uptime from the injected clock', async () => {
    const { host, clock } = makeHost();
    clock.advance(65_000);
    const result = await host.invoke('app:info', undefined);
    expect(result).toMatchObject({ ok: true, value: { version: '1.2.3', mode: 'headless', uptimeMs: 65_000, logDir: '/data/logs' } });
  });

  it('reports the runner honestly unpaired', async () => {
    const { host } = makeHost();
    expect(await host.invoke('runner:status', {})).toMatchObject({ ok: true, value: { state: 'unpaired' } });
  });

  it('refuses an unknown command and malformed input with data, not a throw', async () => {
    const { host } = makeHost();
    expect(await host.invoke('app:rm-rf', undefined)).toEqual({ ok: false, error: { code: 'unknown_command', message: 'unknown command app:rm-rf' } });
    expect(await host.invoke({ toString: 1 }, undefined)).toMatchObject({ ok: false, error: { code: 'unknown_command' } });
    expect(await host.invoke('app:info', { extra: true })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const badLimit = await host.invoke('log:recent', { limit: 'ten' });
    expect(badLimit).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(!badLimit.ok && badLimit.error.message).toContain('limit');
    expect(await host.invoke('__proto__', undefined)).toMatchObject({ ok: false, error: { code: 'unknown_command' } });
  });

  it('starts its services once, streams log lines as events, and stops cleanly twice', async () => {
    const { host, clock, logging, service } = makeHost();
    const batches: HostEvent[][] = [];
    host.subscribe((b) => batches.push(b));
    await host.start();
    await host.start();
    expect(service.starts).toBe(1);
    logging.log.info('hello');
    clock.advance(50);
    const kinds = batches.flat().map((e) => e.event);
    expect(kinds).toContain('runner:status');
    expect(kinds).toContain('log:entries');
    await host.stop();
    await host.stop();
    expect(service.stops).toBe(1);
  });
});

describe('EventHub batching', () => {
  it('coalesces a burst into one batch, latest status wins, logs concatenate', () => {
    const clock = new FakeClock();
    const hub = new EventHub(clock, 50);
    const batches: HostEvent[][] = [];
    hub.subscribe((b) => batches.push(b));
    const entry = (seq: number) => ({ seq, time: 't', level: 'info' as const, msg: `m${seq}` });
    hub.emit({ event: 'runner:status', payload: { state: 'unpaired', reason: 'a' } });
    hub.emit({ event: 'log:entries', payload: [entry(1)] });
    hub.emit({ event: 'log:entries', payload: [entry(2)] });
    hub.emit({ event: 'runner:status', payload: { state: 'idle', reason: 'b' } });
    expect(batches).toHaveLength(0);
    clock.advance(49);
    expect(batches).toHaveLength(0);
    clock.advance(1);
    expect(batches).toHaveLength(1);
    const [batch] = batches;
    expect(batch?.filter((e) => e.event === 'runner:status')).toEqual([{ event: 'runner:status', payload: { state: 'idle', reason: 'b' } }]);
    expect(batch?.filter((e) => e.event === 'log:entries').flatMap((e) => e.payload as unknown[])).toHaveLength(2);
    clock.advance(1000);
    expect(batches).toHaveLength(1);
  });

  it('keeps each profile’s latest status in a batch: one profile’s does not hide another’s', () => {
    const clock = new FakeClock();
    const hub = new EventHub(clock, 50);
    const batches: HostEvent[][] = [];
    hub.subscribe((b) => batches.push(b));
    hub.emit({ event: 'runner:status', payload: { state: 'idle', reason: 'a', profile: 'default' } });
    hub.emit({ event: 'runner:status', payload: { state: 'paused', reason: 'b', until: null, profile: 'lab' } });
    hub.emit({ event: 'runner:status', payload: { state: 'working', reason: 'c', active: 1, limit: 1, profile: 'default' } });
    clock.advance(50);
    expect(batches[0]?.map((e) => [e.event, (e.payload as { state: string }).state])).toEqual([
      ['runner:status', 'paused'],
      ['runner:status', 'working'],
    ]);
  });
});
