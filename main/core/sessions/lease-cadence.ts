import { SECHROOM_LEASE_TTL_MS } from '../../../shared/protocol/sechroom-lease';
import { isConnectorError } from '../connectors/errors';

/*
 * When a lease heartbeat goes out, and how long one may take, worked out from the time
 * the lease has left and from nothing else: a failing claim, card or telemetry request
 * never slows the heartbeat down. The time left is counted from when a good beat was
 * *sent* (the Work Layer extends the lease from when it got it, later), so our idea of
 * the deadline is never later than the Work Layer's.
 */

/** Retries after a failed beat: a quarter of the time left, within these bounds. */
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 2_000;
/** No request waits longer than this, whatever the time left. */
const REQUEST_MAX_MS = 15_000;
/** A request gets at least this long, even past our deadline (the Work Layer may still hold the lease). */
const REQUEST_MIN_MS = 250;

/** The lease time an answer grants from `sentAt`: its `expiresAt` when that is sooner than the protocol's TTL (a server with shorter leases). */
export function grantedMs(sentAt: number, expiresAt: string | undefined): number {
  const told = expiresAt ? Date.parse(expiresAt) - sentAt : Number.NaN;
  // A clock far off the server's (told ≤ 0) or no answer: the protocol's TTL.
  return Number.isFinite(told) && told > 0 && told < SECHROOM_LEASE_TTL_MS ? told : SECHROOM_LEASE_TTL_MS;
}

/** The next beat after a good one: the configured interval, but never more than a third of the lease, so two can fail before it ends. */
export function nextBeatMs(intervalMs: number, grantMs: number): number {
  return Math.min(intervalMs, Math.floor(grantMs / 3));
}

/** The retry after a failed beat: about a quarter of the time left, 250 ms–2 s. */
export function retryMs(leftMs: number): number {
  return Math.min(RETRY_MAX_MS, Math.max(RETRY_MIN_MS, Math.floor(leftMs / 4)));
}

/** A lease request's timeout: no longer than the time left (a hung request must not outlive the lease it should save). */
export function requestTimeoutMs(leftMs: number): number {
  return Math.min(REQUEST_MAX_MS, Math.max(REQUEST_MIN_MS, Math.floor(leftMs)));
}

/** Error codes saying the lease is over for us for good: retrying cannot bring it back. */
const GONE_CODES = new Map<string, 'expired' | 'canceled' | 'unknown'>([
  ['lease_expired', 'expired'],
  ['lease_canceled', 'canceled'],
  ['lease_not_active', 'unknown'],
  ['unknown_lease', 'unknown'],
  ['invalid_claim_token', 'unknown'],
  ['foreign_lease', 'unknown'],
]);

/**
 * How a refused lease request says the lease is gone (404, or a 4xx with a lease-gone code); null when it may still come back.
 * The code is the server's text: a Map, so a code such as `constructor` is no key of an object's prototype.
 */
export function leaseGone(error: unknown): 'expired' | 'canceled' | 'unknown' | null {
  if (isConnectorError(error, 'not_found')) return 'unknown';
  if (!isConnectorError(error, 'rejected') || !error.code) return null;
  return GONE_CODES.get(error.code) ?? null;
}
