import { describe, expect, it } from 'vitest';
import { SECHROOM_LEASE_TTL_MS } from '../../../shared/protocol/sechroom-lease';
import { ConnectorError } from '../../../main/core/connectors/errors';
import { grantedMs, leaseGone, nextBeatMs, requestTimeoutMs, retryMs } from '../../../main/core/sessions/lease-cadence';

const sentAt = Date.parse('2026-12-07T10:00:00.000Z');
const at = (ms: number) => new Date(sentAt + ms).toISOString();

describe('the lease cadence both planes share', () => {
  it("takes a server's shorter lease from its expiresAt, counted from when the beat was sent", () => {
    expect(grantedMs(sentAt, at(30_000))).toBe(30_000);
    expect(grantedMs(sentAt, at(SECHROOM_LEASE_TTL_MS - 1))).toBe(SECHROOM_LEASE_TTL_MS - 1);
  });

  it("falls back to the protocol's TTL for no answer, a longer lease, a clock far off, or a date it cannot read", () => {
    expect(grantedMs(sentAt, undefined)).toBe(SECHROOM_LEASE_TTL_MS);
    expect(grantedMs(sentAt, at(SECHROOM_LEASE_TTL_MS * 10))).toBe(SECHROOM_LEASE_TTL_MS);
    expect(grantedMs(sentAt, at(0))).toBe(SECHROOM_LEASE_TTL_MS);
    expect(grantedMs(sentAt, at(-5_000))).toBe(SECHROOM_LEASE_TTL_MS);
    expect(grantedMs(sentAt, 'not a date')).toBe(SECHROOM_LEASE_TTL_MS);
  });

  it('beats at the configured interval, but at least three times a lease so two can fail before it ends', () => {
    expect(nextBeatMs(10_000, 120_000)).toBe(10_000);
    expect(nextBeatMs(60_000, 120_000)).toBe(40_000);
    expect(nextBeatMs(10_000, 10_000)).toBe(3_333);
  });

  it('retries a failed beat after a quarter of the time left, never sooner than 250 ms nor later than 2 s', () => {
    expect(retryMs(4_000)).toBe(1_000);
    expect(retryMs(100_000)).toBe(2_000);
    expect(retryMs(400)).toBe(250);
    expect(retryMs(-1_000)).toBe(250);
  });

  it('gives a lease request no longer than the time left (15 s at most), and 250 ms even past the deadline', () => {
    expect(requestTimeoutMs(5_000.7)).toBe(5_000);
    expect(requestTimeoutMs(60_000)).toBe(15_000);
    expect(requestTimeoutMs(100)).toBe(250);
    expect(requestTimeoutMs(-30_000)).toBe(250);
  });

  it('reads a 404 or a lease-gone code as the lease over for good, and anything else as one that may come back', () => {
    expect(leaseGone(new ConnectorError('not_found', 'gone', 404))).toBe('unknown');
    expect(leaseGone(new ConnectorError('rejected', 'no', 409, 'lease_expired'))).toBe('expired');
    expect(leaseGone(new ConnectorError('rejected', 'no', 409, 'lease_canceled'))).toBe('canceled');
    for (const code of ['lease_not_active', 'unknown_lease', 'invalid_claim_token', 'foreign_lease']) {
      expect(leaseGone(new ConnectorError('rejected', 'no', 409, code))).toBe('unknown');
    }
    expect(leaseGone(new ConnectorError('rejected', 'no', 422, 'invalid_body'))).toBeNull();
    expect(leaseGone(new ConnectorError('rejected', 'no', 409))).toBeNull();
    expect(leaseGone(new ConnectorError('rejected', 'no', 409, 'toString'))).toBeNull();
    expect(leaseGone(new ConnectorError('server', 'down', 503, 'lease_expired'))).toBeNull();
    expect(leaseGone(new ConnectorError('timeout', 'slow'))).toBeNull();
    expect(leaseGone(new Error('lease_expired'))).toBeNull();
  });
});
