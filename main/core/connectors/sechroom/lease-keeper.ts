import { errorText } from '../../../../shared/errors';
import type { SechroomLeaseHeartbeatResponse } from '../../../../shared/protocol/sechroom';
import type { Clock, Logger, TimerHandle } from '../../ports';
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
  onLoss(loss: LeaseLoss): void;
  onBeat?(answer: SechroomLeaseHeartbeatResponse): void;
}

/**
 * The lease heartbeat of one claimed task (seed E8): one beat every interval from the
 * claim on (the seed starts after the card loads, B6.3), each scheduled after the last one
 * answered, never a bare setInterval. Unlike the seed it reads the answer [v1]:
 * `cancel_requested` and an ended lease are reported once to the owner.
 */
export class LeaseKeeper {
  private timer: TimerHandle | null = null;
  private stopped = false;
  private lost = false;
  private beats = 0;

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

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      void this.beat().finally(() => this.schedule());
    }, this.deps.intervalMs);
  }

  private async beat(): Promise<void> {
    try {
      const answer = await this.deps.client.heartbeat(this.deps.leaseId, this.deps.claimToken, this.deps.tokenVersion);
      if (this.stopped) return;
      this.beats++;
      this.deps.onBeat?.(answer);
      if (answer.status === 'cancel_requested') this.lose({ kind: 'cancel_requested', reason: answer.reason ?? null });
      else if (answer.status !== 'active') this.lose({ kind: 'ended', status: answer.status, reason: answer.reason ?? null });
    } catch (error) {
      if (this.stopped) return;
      // A lease the Work Layer no longer knows will never come back; anything else may.
      if (isConnectorError(error, 'not_found')) return this.lose({ kind: 'ended', status: 'unknown', reason: error.message });
      this.deps.log.warn(`lease heartbeat failed (retrying next beat): ${errorText(error)}`, {
        leaseId: this.deps.leaseId,
      });
    }
  }

  private lose(loss: LeaseLoss): void {
    if (this.lost) return;
    this.lost = true;
    this.deps.onLoss(loss);
  }
}
