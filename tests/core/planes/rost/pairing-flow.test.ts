import { describe, expect, it } from 'vitest';
import type { PairingPoll } from '../../../../main/core/planes/rost/connector';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import { pairingFixture } from './pairing-fixture';

type Step = PairingPoll | ConnectorError;

function setup(steps: Step[], opts: { interval?: number; expiresIn?: number; approve?: () => Promise<{ runnerName: string }> } = {}) {
  const { clock, flow, states, pollTimes } = pairingFixture({
    polls: steps,
    started: { interval: opts.interval ?? 5, expires_in: opts.expiresIn ?? 600 },
    ...(opts.approve ? { approve: opts.approve } : {}),
  });
  return { clock, flow, states, rel: () => [...pollTimes] };
}

const approved: PairingPoll = { kind: 'approved', credentials: { runner_id: 'r1', runner_secret: 'x'.repeat(32), tenant_id: 't1' } };

describe('device-code pairing flow', () => {
  it('shows the code, polls at the interval, and ends approved', async () => {
    const { clock, flow, states, rel } = setup([{ kind: 'pending' }, { kind: 'pending' }, approved]);
    await flow.start({ name: 'box', platform: 'linux' });
    expect(flow.current).toMatchObject({ phase: 'waiting', userCode: 'BCDF-GHJK', intervalSeconds: 5 });
    await clock.advanceAsync(15_000, 1000);
    expect(rel()).toEqual([5, 10, 15]);
    expect(flow.current).toEqual({ phase: 'approved', runnerName: 'box' });
    expect(flow.running).toBe(false);
    expect(states.map((s) => s.phase)).toEqual(['starting', 'waiting', 'approved']);
    await clock.advanceAsync(60_000, 5000);
    expect(rel()).toHaveLength(3);
  });

  it('adds 5 s to the interval for the rest of the flow after slow_down', async () => {
    const { clock, flow, rel } = setup([{ kind: 'slow_down' }, { kind: 'pending' }, { kind: 'pending' }]);
    await flow.start({ name: 'box', platform: 'linux' });
    await clock.advanceAsync(35_000, 1000);
    expect(rel()).toEqual([5, 15, 25, 35]);
    expect(flow.current).toMatchObject({ phase: 'waiting', intervalSeconds: 10 });
  });

  it('stops on access_denied and on expired_token', async () => {
    const denied = setup([{ kind: 'denied' }]);
    await denied.flow.start({ name: 'box', platform: 'linux' });
    await denied.clock.advanceAsync(5_000, 1000);
    expect(denied.flow.current).toEqual({ phase: 'denied' });

    const expired = setup([{ kind: 'expired' }]);
    await expired.flow.start({ name: 'box', platform: 'linux' });
    await expired.clock.advanceAsync(5_000, 1000);
    expect(expired.flow.current).toEqual({ phase: 'expired' });
  });

  it('expires locally when the code runs out, without asking again', async () => {
    const { clock, flow, rel } = setup([], { expiresIn: 12 });
    await flow.start({ name: 'box', platform: 'linux' });
    await clock.advanceAsync(30_000, 1000);
    expect(flow.current).toEqual({ phase: 'expired' });
    expect(rel()).toEqual([5, 10]);
  });

  it('backs off on network trouble, says so, and recovers', async () => {
    const down = () => new ConnectorError('network', 'connect ECONNREFUSED');
    const { clock, flow, rel } = setup([down(), down(), down(), { kind: 'pending' }, approved]);
    await flow.start({ name: 'box', platform: 'linux' });
    await clock.advanceAsync(5_000, 1000);
    expect(flow.current).toMatchObject({ phase: 'waiting', trouble: { message: expect.stringContaining('ECONNREFUSED') } });
    await clock.advanceAsync(120_000, 1000);
    const gaps = rel()
      .slice(1)
      .map((t, i) => t - rel()[i]!);
    // Never faster than the interval; growing while the trouble lasts.
    expect(gaps.every((g) => g >= 5)).toBe(true);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
    expect(flow.current).toEqual({ phase: 'approved', runnerName: 'box' });
  });

  it('cancel wins over a poll in flight', async () => {
    const { clock, flow } = setup([approved]);
    await flow.start({ name: 'box', platform: 'linux' });
    clock.advance(5_000);
    flow.cancel();
    await clock.advanceAsync(10_000, 1000);
    expect(flow.current).toEqual({ phase: 'canceled' });
  });

  it('fails with the reason when storing the credentials is refused', async () => {
    const { clock, flow } = setup([approved], {
      approve: async () => {
        throw new Error('This pairing belongs to another tenant');
      },
    });
    await flow.start({ name: 'box', platform: 'linux' });
    await clock.advanceAsync(5_000, 1000);
    expect(flow.current).toEqual({ phase: 'failed', message: 'This pairing belongs to another tenant' });
  });
});
