import { errorText } from '../../../../shared/errors';
import type { SechroomLeaseHeartbeatResponse } from '../../../../shared/protocol/sechroom';
import type { Clock, Logger, TimerHandle } from '../../ports';
import { backoffDelay } from '../../runner/backoff';
import { isConnectorError } from '../errors';
import type { WorkLayerClient } from './work-layer-client';

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

/** A failed beat is tried again after this (then doubling), never later than the interval. */
const RETRY = { baseMs: 2_000 };

/**
 * The lease heartbeat of one claimed task (seed E8): one beat every interval from the
 * claim on (the seed starts after the card loads, B6.3) until the owner stops it (once the
 * completion has landed, not when the turn ends), never a bare setInterval. The next beat
 * is due an interval after the last one *started*, so a slow answer does not stretch the
 * gap; a failed beat is retried within seconds, not a whole interval later (with a 100 s
 * interval one 503 would otherwise cost the 120 s lease). Unlike the seed it reads the
 * answer [v1]: `cancel_requested` and an ended lease are reported once to the owner.
 */
export class LeaseKeeper {
  private timer: TimerHandle | null = null;
  private stopped = false;
  private lost = false;
  private beats = 0;
  private failures = 0;

  constructor(private readonly deps: LeaseKeeperDeps) {}

  get beatCount(): number {
    return this.beats;
  }

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs = this.deps.intervalMs): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      const startedAt = this.deps.clock.now();
      void this.beat().then((ok) => {
        const { intervalMs } = this.deps;
        if (ok) return this.schedule(Math.max(0, intervalMs - (this.deps.clock.now() - startedAt)));
        this.schedule(Math.min(intervalMs, backoffDelay(this.failures - 1, { ...RETRY, capMs: intervalMs }, this.deps.random)));
      });
    }, delayMs);
  }

  /** One beat; false when it failed and should be retried soon. */
  private async beat(): Promise<boolean> {
    try {
      const answer = await this.deps.client.heartbeat(this.deps.leaseId, this.deps.claimToken, this.deps.tokenVersion);
      if (this.stopped) return true;
      this.beats++;
      this.failures = 0;
      this.deps.onBeat?.(answer);
      if (answer.status === 'cancel_requested') this.lose({ kind: 'cancel_requested', reason: answer.reason ?? null });
      else if (answer.status !== 'active') this.lose({ kind: 'ended', status: answer.status, reason: answer.reason ?? null });
      return true;
    } catch (error) {
      if (this.stopped) return true;
      // A lease the Work Layer no longer knows will never come back; anything else may.
      if (isConnectorError(error, 'not_found')) {
        this.lose({ kind: 'ended', status: 'unknown', reason: error.message });
        return true;
      }
      this.failures++;
      this.deps.log.warn(`lease heartbeat failed (retrying next beat): ${errorText(error)}`, {
        leaseId: this.deps.leaseId,
      });
      return false;
    }
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

  constructor(private readonly deps: Pick<LeaseKeeperDeps, 'client' | 'clock' | 'log' | 'intervalMs' | 'random'>) {}

  has(leaseId: string): boolean {
    return this.keepers.has(leaseId);
  }

  keep(lease: { leaseId: string; claimToken: string; tokenVersion: number }, onLoss: (loss: LeaseLoss) => void): void {
    const keeper = new LeaseKeeper({ ...this.deps, ...lease, onLoss });
    this.keepers.get(lease.leaseId)?.stop();
    this.keepers.set(lease.leaseId, keeper);
    keeper.start();
  }

  letGo(leaseId: string): void {
    this.keepers.get(leaseId)?.stop();
    this.keepers.delete(leaseId);
  }

  letGoAll(): void {
    for (const leaseId of [...this.keepers.keys()]) this.letGo(leaseId);
  }
}
