import { describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../../main/core/connectors/errors';
import { LeaseKeeper, type LeaseLoss } from '../../../../main/core/planes/sechroom/lease-keeper';
import type { SechroomLeaseHeartbeatResponse } from '../../../../shared/protocol/sechroom';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

type Beat = (call: { at: number; timeoutMs: number | undefined }) => SechroomLeaseHeartbeatResponse;

/** A keeper on a fake clock whose heartbeat answers what `answer` says; every call is noted with its time and timeout. */
function keeper(answer: Beat, intervalMs = 30_000) {
  const clock = new FakeClock();
  const calls: { at: number; timeoutMs: number | undefined }[] = [];
  const losses: LeaseLoss[] = [];
  const k = new LeaseKeeper({
    client: {
      heartbeat: (_id, _token, _version, opts?: { timeoutMs?: number }) => {
        const call = { at: clock.now(), timeoutMs: opts?.timeoutMs };
        calls.push(call);
        try {
          return Promise.resolve(answer(call));
        } catch (error) {
          return Promise.reject(error as Error);
        }
      },
    },
    clock,
    log: testLogging().log,
    leaseId: 'lse_1',
    claimToken: 'sct_x',
    tokenVersion: 1,
    intervalMs,
    onLoss: (loss) => losses.push(loss),
  });
  const start = clock.now();
  k.start();
  return { clock, calls, losses, k, start };
}

const active = (at: number, ttl = 120_000): SechroomLeaseHeartbeatResponse => ({
  leaseId: 'lse_1',
  status: 'active',
  expiresAt: new Date(at + ttl).toISOString(),
});
const unavailable = () => {
  throw new ConnectorError('server', 'server error 503', 503);
};

describe('the lease keeper', () => {
  it('retries a failing beat every 2 s while much of the lease is left, then faster, never waiting past the time left', async () => {
    const t = keeper(unavailable);
    await t.clock.advanceAsync(119_000);
    const offsets = t.calls.map((c) => c.at - t.start);
    expect(offsets[0]).toBe(30_000);
    expect(offsets[1]).toBe(32_000);
    // Dozens of tries inside the 120 s lease (the old doubling backoff made about seven).
    expect(t.calls.length).toBeGreaterThan(40);
    // Near the end of the lease the gaps shrink toward 250 ms, and no request may wait longer than the lease has left.
    const last = t.calls.at(-1)!;
    expect(last.at - t.calls.at(-2)!.at).toBeLessThan(1_000);
    for (const call of t.calls) expect(call.timeoutMs).toBeLessThanOrEqual(Math.max(250, t.start + 120_000 - call.at));
    t.k.stop();
  });

  it('beats at most a third of the lease apart when the Work Layer grants a shorter lease than the interval allows', async () => {
    const t = keeper((c) => active(c.at, 9_000), 30_000);
    await t.clock.advanceAsync(60_000);
    expect(t.calls.length).toBeGreaterThan(10);
    const gaps = t.calls.slice(1).map((c, i) => c.at - t.calls[i]!.at);
    expect(gaps.every((g) => g === 3_000)).toBe(true);
    t.k.stop();
  });

  for (const [status, code, ended] of [
    [409, 'lease_expired', 'expired'],
    [409, 'lease_canceled', 'canceled'],
    [404, 'unknown_lease', 'unknown'],
  ] as const) {
    it(`stops at once on a ${status} ${code}: the lease is gone, the owner hears it once, no more beats`, async () => {
      const t = keeper(() => {
        throw new ConnectorError(status === 404 ? 'not_found' : 'rejected', `refused (${status} ${code})`, status, code);
      });
      await t.clock.advanceAsync(100_000);
      expect(t.calls).toHaveLength(1);
      expect(t.losses).toEqual([{ kind: 'ended', status: ended, reason: expect.stringContaining(code) }]);
    });
  }
});
