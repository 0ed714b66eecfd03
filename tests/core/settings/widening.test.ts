import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Host } from '../../../main/core/host';
import { CommandFailure, type Caller } from '../../../main/core/base/dispatch';
import { activeWidening, WideningGate, wideningOf } from '../../../main/core/settings/widening';
import { startHeadlessServer, type HeadlessServer } from '../../../main/headless/server';
import { defaultSettings, parseSetting } from '../../../shared/settings';
import { testLogging } from '../../helpers/test-logger';
import { openAddress, windowProtocols } from '../../helpers/window-session';

// Widening what a turn can reach is an operator's act: it needs a one-time value only a
// window session gets, a script is refused, and what goes through is logged with who and when.

function clockAt(start: number) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

function failure(run: () => unknown): CommandFailure | null {
  try {
    run();
    return null;
  } catch (error) {
    return error instanceof CommandFailure ? error : null;
  }
}

describe('which changes widen', () => {
  const base = defaultSettings('test-host');
  it('turning on own config and adding variable names widen; turning off and removing names do not', () => {
    expect(wideningOf(base, { useOwnAgentConfig: true })).toEqual(['useOwnAgentConfig']);
    expect(wideningOf(base, { runtimeEnvAllow: 'AWS_*, GITHUB_TOKEN' })).toEqual(['runtimeEnvAllow']);
    const wide = { ...base, useOwnAgentConfig: true, runtimeEnvAllow: 'A, B' };
    expect(wideningOf(wide, { useOwnAgentConfig: false, runtimeEnvAllow: 'B' })).toEqual([]);
    expect(wideningOf(wide, { runtimeEnvAllow: 'B, A' })).toEqual([]);
    expect(wideningOf(base, { notifications: false })).toEqual([]);
    expect(activeWidening(wide)).toEqual(['useOwnAgentConfig', 'runtimeEnvAllow']);
    expect(activeWidening(base)).toEqual([]);
  });

  it("a turn's network widens when it is shared or gets a new host; the allowlist and fewer hosts do not", () => {
    expect(base.turnNetwork).toBe('allowlist');
    expect(wideningOf(base, { turnNetwork: 'shared' })).toEqual(['turnNetwork']);
    expect(wideningOf(base, { turnEgressHosts: 'pypi.org, registry.npmjs.org' })).toEqual(['turnEgressHosts']);
    const wide = { ...base, turnNetwork: 'shared' as const, turnEgressHosts: 'a.example, b.example:8443' };
    expect(wideningOf(wide, { turnNetwork: 'allowlist', turnEgressHosts: 'b.example:8443' })).toEqual([]);
    expect(wideningOf(wide, { turnEgressHosts: 'B.example:8443, a.example' })).toEqual([]);
    expect(activeWidening(wide)).toEqual(['turnNetwork', 'turnEgressHosts']);
  });
});

describe('the egress hosts setting', () => {
  it('takes host[:port] entries, normalized, and refuses schemes, paths, wildcards and bad ports', () => {
    expect(parseSetting('turnEgressHosts', ' PyPI.org  registry.npmjs.org:443,pypi.org ')).toEqual({ ok: true, value: 'pypi.org, registry.npmjs.org:443' });
    for (const bad of ['https://pypi.org', 'pypi.org/simple', '*.example.com', 'a.example:0', 'a.example:99999']) {
      expect(parseSetting('turnEgressHosts', bad).ok, bad).toBe(false);
    }
    expect(parseSetting('turnNetwork', 'open').ok).toBe(false);
  });
});

describe('the widening gate', () => {
  it('a script gets no challenge and cannot widen; a window needs an unspent, fresh challenge', () => {
    const logging = testLogging();
    const clock = clockAt(1_000_000);
    const gate = new WideningGate(clock, logging.log);
    expect(failure(() => gate.challenge('script'))?.code).toBe('window_only');
    expect(failure(() => gate.admit(['useOwnAgentConfig'], 'script', undefined, 'default'))?.code).toBe('confirm_widening');
    expect(failure(() => gate.admit(['useOwnAgentConfig'], 'window', undefined, 'default'))?.code).toBe('confirm_widening');
    expect(failure(() => gate.admit(['useOwnAgentConfig'], 'window', 'made-up', 'default'))?.code).toBe('confirm_widening');

    const { nonce } = gate.challenge('window');
    // A script that learned the value still cannot use it.
    expect(failure(() => gate.admit(['runtimeEnvAllow'], 'script', nonce, 'default'))?.code).toBe('confirm_widening');
    const second = gate.challenge('window').nonce;
    expect(failure(() => gate.admit(['runtimeEnvAllow'], 'window', second, 'default'))).toBeNull();
    // Spent.
    expect(failure(() => gate.admit(['runtimeEnvAllow'], 'window', second, 'default'))?.code).toBe('confirm_widening');
    const late = gate.challenge('window').nonce;
    clock.t += 10 * 60_000;
    expect(failure(() => gate.admit(['useOwnAgentConfig'], 'window', late, 'default'))?.code).toBe('confirm_widening');
    // Narrowing needs nothing.
    expect(failure(() => gate.admit([], 'script', undefined, 'default'))).toBeNull();

    const lines = logging.entries.filter((e) => e.msg.includes('widens what a turn can reach'));
    const admitted = lines.find((e) => e.msg.startsWith('a setting'));
    expect(admitted?.data).toMatchObject({ settings: ['runtimeEnvAllow'], by: 'window', at: new Date(1_000_000).toISOString() });
    expect(lines.some((e) => e.msg.startsWith('refused') && (e.data as { by?: string } | undefined)?.by === 'script')).toBe(true);
  });
});

describe('who the headless host says is calling', () => {
  let server: HeadlessServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  async function callerOf(headers: Record<string, string>, origin?: string, protocols: string[] = []): Promise<Caller | undefined> {
    let seen: Caller | undefined;
    const ws = new WebSocket(`ws://127.0.0.1:${server!.port}/ws`, protocols, { headers, ...(origin ? { origin } : {}) });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const answered = new Promise<void>((resolve) => ws.once('message', () => resolve()));
    calls.length = 0;
    ws.send(JSON.stringify({ id: 1, command: 'settings:widening-challenge', input: {} }));
    await answered;
    seen = calls[0];
    ws.terminate();
    return seen;
  }

  const calls: (Caller | undefined)[] = [];
  const host = {
    status: () => ({ state: 'idle' }),
    subscribe: () => () => undefined,
    watch: () => () => undefined,
    invoke: (_name: unknown, _input: unknown, caller?: Caller) => {
      calls.push(caller);
      return Promise.resolve({ ok: true, value: null });
    },
  } as unknown as Host;

  it("the Bearer (the token file's script token) is a script; a browser window session is the window", async () => {
    server = await startHeadlessServer({ host, staticDir: '/nonexistent', port: 0, log: testLogging().log });
    expect(await callerOf({ authorization: `Bearer ${server.scriptToken}` })).toBe('script');
    const { cookie, windowKey } = await openAddress(server.url);
    expect(cookie).not.toBe('');
    expect(windowKey).not.toBe('');
    expect(await callerOf({ cookie }, server.origin, windowProtocols(windowKey))).toBe('window');
  });
});
