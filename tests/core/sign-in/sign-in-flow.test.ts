import { describe, expect, it } from 'vitest';
import type { SignInState } from '../../../shared/operator';
import type { TokenResponse } from '../../../shared/protocol';
import { ConnectorError } from '../../../main/core/connectors/errors';
import type { DeviceTokenPoll } from '../../../main/core/sign-in/oauth-client';
import { SignInFlow } from '../../../main/core/sign-in/sign-in-flow';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

type Step = DeviceTokenPoll | ConnectorError | Error | Promise<DeviceTokenPoll>;
const TOKENS: TokenResponse = { access_token: 'oat_aaaaaaaa', token_type: 'Bearer', expires_in: 900, refresh_token: 'ort_bbbbbbbb' };

function setup(steps: Step[], opts: { interval?: number; expiresIn?: number; onTokens?: (t: TokenResponse) => Promise<void>; startFails?: Error } = {}) {
  const clock = new FakeClock();
  const states: SignInState[] = [];
  const pollTimes: number[] = [];
  const secrets: string[] = [];
  const logging = testLogging();
  const flow = new SignInFlow({
    oauth: {
      startDeviceAuthorization: async () => {
        if (opts.startFails) throw opts.startFails;
        return {
          device_code: 'odc_device_code_secret',
          user_code: 'BCDF-GHJK',
          verification_uri: 'http://cp/oauth/device',
          verification_uri_complete: 'http://cp/oauth/device?code=BCDF-GHJK',
          expires_in: opts.expiresIn ?? 600,
          interval: opts.interval ?? 5,
        };
      },
      pollDeviceToken: async (code) => {
        expect(code).toBe('odc_device_code_secret');
        pollTimes.push(clock.now());
        const step = steps.shift() ?? { kind: 'pending' };
        if (step instanceof Error) throw step;
        return await step;
      },
    },
    clock,
    log: logging.log,
    random: () => 0.5,
    onState: (s) => states.push(s),
    onTokens: opts.onTokens ?? (async () => {}),
    registerSecret: (s) => secrets.push(s),
  });
  const start = clock.now();
  const rel = () => pollTimes.map((t) => (t - start) / 1000);
  return { clock, flow, states, rel, secrets, logging };
}

const tokens: DeviceTokenPoll = { kind: 'tokens', tokens: TOKENS };

describe('operator sign-in (OAuth device flow)', () => {
  it('shows the code, polls at the interval, and ends approved', async () => {
    const received: TokenResponse[] = [];
    const { clock, flow, states, rel, secrets } = setup([{ kind: 'pending' }, { kind: 'pending' }, tokens], { onTokens: async (t) => void received.push(t) });
    await flow.start();
    expect(flow.current).toMatchObject({
      phase: 'waiting',
      userCode: 'BCDF-GHJK',
      verificationUriComplete: 'http://cp/oauth/device?code=BCDF-GHJK',
      intervalSeconds: 5,
    });
    expect(secrets).toEqual(['odc_device_code_secret']);
    await clock.advanceAsync(15_000, 1000);
    expect(rel()).toEqual([5, 10, 15]);
    expect(received).toEqual([TOKENS]);
    expect(flow.current).toEqual({ phase: 'approved' });
    expect(states.map((s) => s.phase)).toEqual(['starting', 'waiting', 'approved']);
    await clock.advanceAsync(60_000, 5000);
    expect(rel()).toHaveLength(3);
  });

  it('adds 5 s to the interval for the rest of the flow after slow_down', async () => {
    const { clock, flow, rel } = setup([{ kind: 'slow_down' }, { kind: 'pending' }, { kind: 'slow_down', intervalSeconds: 30 }, { kind: 'pending' }]);
    await flow.start();
    await clock.advanceAsync(80_000, 1000);
    expect(rel().slice(0, 5)).toEqual([5, 15, 25, 55, 85].filter((t) => t <= 80));
    expect(flow.current).toMatchObject({ phase: 'waiting', intervalSeconds: 30 });
  });

  it('backs off on network trouble, shows it, and clears it when a poll gets through', async () => {
    const down = new ConnectorError('network', 'POST /oauth/token failed: ECONNREFUSED');
    const { clock, flow, rel } = setup([down, down, down, { kind: 'pending' }]);
    await flow.start();
    await clock.advanceAsync(5_000, 1000);
    expect(flow.current).toMatchObject({ phase: 'waiting', trouble: { message: expect.stringContaining('ECONNREFUSED') } });
    await clock.advanceAsync(60_000, 1000);
    // Never faster than the interval; growing with jitter (random 0.5).
    const gaps = rel().map((t, i, all) => t - (all[i - 1] ?? 0));
    expect(gaps[0]).toBe(5);
    expect(gaps.slice(1).every((g) => g >= 5)).toBe(true);
    expect(gaps[3]!).toBeGreaterThan(gaps[1]!);
    expect(flow.current).toMatchObject({ phase: 'waiting', trouble: null });
  });

  it('ends denied, expired, or failed, and stops polling', async () => {
    const denied = setup([{ kind: 'denied' }]);
    await denied.flow.start();
    await denied.clock.advanceAsync(30_000, 1000);
    expect(denied.flow.current).toEqual({ phase: 'denied' });
    expect(denied.rel()).toEqual([5]);

    const expired = setup([], { expiresIn: 12 });
    await expired.flow.start();
    await expired.clock.advanceAsync(60_000, 1000);
    expect(expired.flow.current).toEqual({ phase: 'expired' });
    expect(expired.rel()).toEqual([5, 10]);

    const serverSaid = setup([{ kind: 'expired' }]);
    await serverSaid.flow.start();
    await serverSaid.clock.advanceAsync(5_000);
    expect(serverSaid.flow.current).toEqual({ phase: 'expired' });

    const refused = setup([new ConnectorError('rejected', 'token: refused (400 invalid_grant)', 400, 'invalid_grant')]);
    await refused.flow.start();
    await refused.clock.advanceAsync(5_000);
    expect(refused.flow.current).toEqual({ phase: 'failed', message: 'token: refused (400 invalid_grant)' });

    const identity = setup([tokens], { onTokens: async () => Promise.reject(new Error('Signed in, but could not read who you are')) });
    await identity.flow.start();
    await identity.clock.advanceAsync(5_000);
    expect(identity.flow.current).toEqual({ phase: 'failed', message: 'Signed in, but could not read who you are' });

    const noStart = setup([], { startFails: new ConnectorError('network', 'GET /.well-known/oauth-authorization-server failed: ECONNREFUSED') });
    await noStart.flow.start();
    expect(noStart.flow.current).toMatchObject({ phase: 'failed', message: expect.stringContaining('Could not start the operator sign-in') });
  });

  it('cancel wins over a poll in flight', async () => {
    let release: (poll: DeviceTokenPoll) => void = () => {};
    // A poll that answers only when the test says so.
    const held = new Promise<DeviceTokenPoll>((resolve) => {
      release = resolve;
    });
    const { clock, flow, states } = setup([held]);
    await flow.start();
    await clock.advanceAsync(5_000);
    flow.cancel();
    release(tokens);
    await clock.advanceAsync(30_000, 5000);
    expect(flow.current).toEqual({ phase: 'canceled' });
    expect(states.at(-1)).toEqual({ phase: 'canceled' });
    expect(clock.timerCount).toBe(0);
  });

  it('never logs the device code', async () => {
    const { clock, flow, logging } = setup([{ kind: 'slow_down' }, new ConnectorError('timeout', 'timed out'), { kind: 'denied' }]);
    await flow.start();
    await clock.advanceAsync(60_000, 1000);
    expect(JSON.stringify(logging.entries)).not.toContain('odc_device_code_secret');
  });
});
