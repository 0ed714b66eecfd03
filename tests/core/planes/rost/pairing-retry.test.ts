import { describe, expect, it } from 'vitest';
import type { PairingPoll } from '../../../../main/core/planes/rost/connector';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import { pairingFixture } from './pairing-fixture';

const down = () => new ConnectorError('network', 'connect ECONNREFUSED 127.0.0.1:9');
/** A flow whose starts and polls answer from the lists (an error in a list is thrown). */
function setup(starts: (ConnectorError | 'ok')[], polls: (PairingPoll | ConnectorError)[] = []) {
  return pairingFixture({ starts, polls });
}

describe('pairing when the control plane cannot be reached', () => {
  it('retries a start that could not reach the control plane with backoff, saying when and why, until it gets a code', async () => {
    const { clock, flow, startTimes, t0 } = setup([down(), down(), 'ok']);
    // The start answers at once, although no code came yet.
    await flow.start({ name: 'box', platform: 'linux' });
    // Backoff with random 0.5: 1.5 s after the first failure, 2.5 s after the second.
    expect(flow.current).toEqual({
      phase: 'retrying',
      what: 'pairing',
      lastError: 'connect ECONNREFUSED 127.0.0.1:9',
      nextAttemptAt: new Date(t0 + 1500).toISOString(),
      attempts: 1,
    });
    await clock.advanceAsync(1500, 500);
    expect(flow.current).toMatchObject({ phase: 'retrying', attempts: 2, nextAttemptAt: new Date(t0 + 4000).toISOString() });
    await clock.advanceAsync(2500, 500);
    expect(flow.current).toMatchObject({ phase: 'waiting', userCode: 'BCDF-GHJK' });
    expect(startTimes).toEqual([0, 1.5, 4]);
    expect(flow.running).toBe(true);
  });

  it('does not retry what a retry cannot fix (a refused start)', async () => {
    const { clock, flow, startTimes } = setup([new ConnectorError('rejected', 'pairing is closed', 403)]);
    await flow.start({ name: 'box', platform: 'linux' });
    expect(flow.current).toMatchObject({ phase: 'failed', message: expect.stringContaining('pairing is closed') });
    await clock.advanceAsync(60_000, 5000);
    expect(startTimes).toEqual([0]);
  });

  it('Retry now makes the waiting start at once and answers with where it led', async () => {
    const { flow, startTimes } = setup([down(), new ConnectorError('server', 'HTTP 503', 503), 'ok']);
    await flow.start({ name: 'box', platform: 'linux' });
    expect(flow.retryPending).toBe(true);
    expect(await flow.retryNow()).toMatchObject({ phase: 'retrying', attempts: 2, lastError: 'HTTP 503' });
    expect(await flow.retryNow()).toMatchObject({ phase: 'waiting', userCode: 'BCDF-GHJK' });
    expect(startTimes).toEqual([0, 0, 0]);
    expect(flow.retryPending).toBe(false);
    // Nothing waits now: Retry now changes nothing.
    expect(await flow.retryNow()).toMatchObject({ phase: 'waiting' });
  });

  it('Retry now polls at once while polls fail, keeping the code', async () => {
    const approved: PairingPoll = { kind: 'approved', credentials: { runner_id: 'r1', runner_secret: 'x'.repeat(32), tenant_id: 't1' } };
    const { clock, flow, pollTimes } = setup(['ok'], [down(), approved]);
    await flow.start({ name: 'box', platform: 'linux' });
    await clock.advanceAsync(5_000, 1000);
    expect(flow.current).toMatchObject({ phase: 'waiting', trouble: { message: expect.stringContaining('ECONNREFUSED') } });
    const now = flow.retryNow();
    await clock.advanceAsync(0);
    // The answer is the first state after the poll: the control plane answered, the trouble is gone.
    expect(await now).toMatchObject({ phase: 'waiting', trouble: null });
    await clock.advanceAsync(0);
    expect(flow.current).toMatchObject({ phase: 'approved' });
    expect(pollTimes).toEqual([5, 5]);
  });

  it('a cancel ends the wait: no more tries', async () => {
    const { clock, flow, startTimes } = setup([down(), down()]);
    await flow.start({ name: 'box', platform: 'linux' });
    flow.cancel();
    expect(flow.current).toEqual({ phase: 'canceled' });
    await clock.advanceAsync(120_000, 5000);
    expect(startTimes).toEqual([0]);
    expect(flow.current).toEqual({ phase: 'canceled' });
  });
});
