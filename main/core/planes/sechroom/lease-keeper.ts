import { errorText } from '../../../../shared/errors';
import type { SechroomLeaseHeartbeatResponse } from '../../../../shared/protocol/sechroom';
import type { Clock, Logger, TimerHandle } from '../../base/ports';
import { SECHROOM_LEASE_TTL_MS } from '../../../../shared/protocol/sechroom-lease';
import { grantedMs, leaseGone, nextBeatMs, requestTimeoutMs, retryMs } from '../../sessions/lease-cadence';
import type { WorkLayerClient } from './work-layer-client';

/** The held lease-notices read [v1] (lease-notice-watch.ts), as the keepers start and stop it. */
export interface NoticeWatch {
  start(): void;
  stop(): void;
}
export type NoticeWatchFactory = (notice: (leaseId: string, status: 'cancel_requested' | 'canceled', reason: string | null) => boolean) => NoticeWatch;

/** Why a lease stopped being ours while we held it. */
export type LeaseLoss =
  { kind: 'cancel_requested'; reason: string | null } | { kind: 'ended'; status: 'expired' | 'completed' | 'canceled' | 'unknown'; reason: string | null };

export interface LeaseKeeperDeps {
  client: Pick<WorkLayerClient, 'heartbeat'>;
  clock: Clock;
  log: Logger;
  leaseId: string;
  claimToken: string;
  /** The seed hard-codes 1 (B15.3); we send what the claim said, else 1. */
  tokenVersion: number;
  intervalMs: number;
  random?: () => number;
  onLoss(loss: LeaseLoss): void;
  onBeat?(answer: SechroomLeaseHeartbeatResponse): void;
}

/**
 * The lease heartbeat of one claimed task (seed E8): one beat every interval from the
 * claim on (the seed starts after the card loads, B6.3) until the owner stops it (once the
 * completion has landed, not when the turn ends), never a bare setInterval. The next beat
 * is due an interval after the last one *started*, so a slow answer does not stretch the
 * gap. Its cadence comes from the time the lease has left (lease-cadence.ts), not from any
 * other request's backoff: a failed beat is retried after about a quarter of the time left
 * (250 ms–2 s), and no beat waits longer than the time left for its answer. Unlike the seed
 * it reads the answer [v1]: `cancel_requested`, an ended lease, and a refusal that says the
 * lease is gone (404, 409 `lease_expired`, …) are reported once to the owner.
 */
export class LeaseKeeper {
  private timer: TimerHandle | null = null;
  private stopped = false;
  private lost = false;
  private beats = 0;
  /** Our idea of when the lease ends: counted from when the claim or the last good beat was sent. */
  private deadline: number;
  private grant = SECHROOM_LEASE_TTL_MS;

  constructor(private readonly deps: LeaseKeeperDeps) {
    this.deadline = deps.clock.now() + this.grant;
  }

  get beatCount(): number {
    return this.beats;
  }

  /** How long the lease has left, as far as we know (≤ 0: it may be gone). */
  get timeLeftMs(): number {
    return this.deadline - this.deps.clock.now();
  }

  start(): void {
    this.schedule(nextBeatMs(this.deps.intervalMs, this.grant));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      const startedAt = this.deps.clock.now();
      void this.beat(startedAt).then((ok) => {
        const { clock, intervalMs } = this.deps;
        if (ok) return this.schedule(Math.max(0, nextBeatMs(intervalMs, this.grant) - (clock.now() - startedAt)));
        this.schedule(retryMs(this.timeLeftMs));
      });
    }, delayMs);
  }

  /** One beat; false when it failed and should be retried soon. */
  private async beat(sentAt: number): Promise<boolean> {
    try {
      const { leaseId, claimToken, tokenVersion } = this.deps;
      const answer = await this.deps.client.heartbeat(leaseId, claimToken, tokenVersion, { timeoutMs: requestTimeoutMs(this.timeLeftMs) });
      if (this.stopped) return true;
      this.beats++;
      if (answer.status === 'active' || answer.status === 'cancel_requested') {
        this.grant = grantedMs(sentAt, answer.expiresAt);
        this.deadline = sentAt + this.grant;
      }
      this.deps.onBeat?.(answer);
      this.answered(answer.status, answer.reason ?? null);
      return true;
    } catch (error) {
      if (this.stopped) return true;
      // A lease the Work Layer says is gone will never come back; anything else may.
      const gone = leaseGone(error);
      if (gone) {
        this.lose({ kind: 'ended', status: gone, reason: errorText(error) });
        return true;
      }
      this.deps.log.warn(`lease heartbeat failed (retrying next beat): ${errorText(error)}`, {
        leaseId: this.deps.leaseId,
      });
      return false;
    }
  }

  /** [v1] A cancel told on the held lease-notices read: the same path as the heartbeat's answer. */
  notice(status: 'cancel_requested' | 'canceled', reason: string | null): void {
    if (!this.stopped) this.answered(status, reason);
  }

  /** What the Work Layer said of the lease, by a heartbeat's answer or a notice. */
  private answered(status: SechroomLeaseHeartbeatResponse['status'], reason: string | null): void {
    if (status === 'cancel_requested') this.lose({ kind: 'cancel_requested', reason });
    else if (status !== 'active') this.lose({ kind: 'ended', status, reason });
  }

  private lose(loss: LeaseLoss): void {
    if (this.lost) return;
    this.lost = true;
    // An ended lease will not come back: no more beats. A requested cancel still holds it until the owner lets go.
    if (loss.kind === 'ended') this.stop();
    this.deps.onLoss(loss);
  }
}

/** The leases an instance holds, by lease id: one keeper each, from the claim until the owner lets go. */
export class LeaseKeepers {
  private readonly keepers = new Map<string, LeaseKeeper>();
  /** [v1] The held lease-notices read, running while any lease is kept. */
  private readonly watch: NoticeWatch | null;

  constructor(private readonly deps: Pick<LeaseKeeperDeps, 'client' | 'clock' | 'log' | 'intervalMs' | 'random'> & { notices?: NoticeWatchFactory }) {
    this.watch = deps.notices?.((leaseId, status, reason) => this.notice(leaseId, status, reason)) ?? null;
  }

  /** A cancel notice for a held lease goes to its keeper; false for a lease not held. */
  private notice(leaseId: string, status: 'cancel_requested' | 'canceled', reason: string | null): boolean {
    const keeper = this.keepers.get(leaseId);
    keeper?.notice(status, reason);
    return keeper !== undefined;
  }

  has(leaseId: string): boolean {
    return this.keepers.has(leaseId);
  }

  keep(lease: { leaseId: string; claimToken: string; tokenVersion: number }, onLoss: (loss: LeaseLoss) => void): void {
    const keeper = new LeaseKeeper({ ...this.deps, ...lease, onLoss });
    this.keepers.get(lease.leaseId)?.stop();
    this.keepers.set(lease.leaseId, keeper);
    keeper.start();
    this.watch?.start();
  }

  /** How long a held lease has left as far as we know; null for one we do not hold. */
  timeLeftMs(leaseId: string): number | null {
    return this.keepers.get(leaseId)?.timeLeftMs ?? null;
  }

  letGo(leaseId: string): void {
    this.keepers.get(leaseId)?.stop();
    this.keepers.delete(leaseId);
    if (this.keepers.size === 0) this.watch?.stop();
  }

  letGoAll(): void {
    for (const leaseId of [...this.keepers.keys()]) this.letGo(leaseId);
  }
}
