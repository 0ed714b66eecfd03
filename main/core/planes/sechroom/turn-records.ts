import type { DeliveryRecord } from '../../../../shared/delivery';
import type { TaskCard, Verdict } from '../../../../shared/protocol/sechroom';
import type { TurnView } from '../../../../shared/turns';
import type { Clock, Logger } from '../../base/ports';
import type { ClaimedTask } from './claim-path';
import type { InflightNote } from './inflight-journal';
import type { LeaseLoss } from './lease-keeper';
import { taskTitle } from './prompt';
import type { OutboxDelivery } from './sechroom-outbox';

export type TurnRecordState = 'claimed' | 'running' | 'completing' | 'completed' | 'abandoned' | 'canceled' | 'rejected';
export type SechroomLeaseState = 'held' | 'cancel_requested' | 'ended' | 'left_to_expire' | 'completed';

/** What the Turns view shows for a Sechroom task. */
export interface SechroomTurnRecord {
  memoryId: string;
  leaseId: string;
  title: string | null;
  decompositionId: string | null;
  state: TurnRecordState;
  verdict: Verdict | null;
  /** The last lifecycle signal (`phase:status`), as progress. */
  phase: string | null;
  lease: SechroomLeaseState;
  completionMemoryId: string | null;
  note: string | null;
  warnings: string[];
  /** ISO: when the task was claimed, and when its record settled. */
  claimedAt: string;
  endedAt: string | null;
  tokens: { input: number; output: number } | null;
  /** The closeout's summary (the completion text's first part). */
  summary: string | null;
  /** Git delivery of the turn's changes (branch, commit, push, PR), once delivered. */
  git?: DeliveryRecord | null;
}

export interface SessionSummary {
  processed: number;
  completed: number;
  abandoned: number;
}

const SETTLED: readonly TurnRecordState[] = ['completed', 'abandoned', 'canceled', 'rejected'];
/**
 * Settled records kept after their turn (the newest), for a completion's late word from the
 * outbox and for the list; older ones live in the turn history store only.
 */
export const RECENT_SETTLED = 64;

/**
 * The executor session's turn bookkeeping: one record per claimed lease, its changes told
 * to the owner (as copies), the seed's ABANDONED line, the run's summary counts, and the
 * outbox's verdict on each completion.
 */
export class TurnRecords {
  private readonly byLease = new Map<string, SechroomTurnRecord>();
  /** Leases of settled records, oldest first. */
  private readonly settled = new Set<string>();
  readonly summary: SessionSummary = { processed: 0, completed: 0, abandoned: 0 };

  constructor(
    private readonly deps: {
      clock: Clock;
      log: Logger;
      onTurn?(record: SechroomTurnRecord): void;
    },
  ) {}

  list(): SechroomTurnRecord[] {
    return [...this.byLease.values()].map(copy);
  }

  claimed(claim: ClaimedTask): SechroomTurnRecord {
    this.summary.processed++;
    return this.add({ memoryId: claim.memoryId, leaseId: claim.leaseId, title: null, decompositionId: claim.decompositionId, state: 'claimed', lease: 'held' });
  }

  /** A turn a previous process claimed and never finished: its lease expires on its own. */
  leftover(note: InflightNote): SechroomTurnRecord {
    const reason = `Runner Tray stopped during the turn (claimed ${note.claimedAt})`;
    const text = abandonedLine(note.memoryId, reason);
    this.deps.log.warn(text);
    return this.add({
      memoryId: note.memoryId,
      leaseId: note.leaseId,
      title: note.title,
      decompositionId: null,
      state: 'abandoned',
      lease: 'left_to_expire',
      note: text,
      claimedAt: note.claimedAt,
    });
  }

  update(record: SechroomTurnRecord, patch: Partial<SechroomTurnRecord>): void {
    Object.assign(record, patch);
    if (patch.state && SETTLED.includes(patch.state) && record.endedAt === null) record.endedAt = this.now();
    this.deps.onTurn?.(copy(record));
    this.settle(record);
  }

  /** The task's card loaded: its title and decomposition, and the loader's warning (a pack that failed). */
  loaded(record: SechroomTurnRecord, card: TaskCard, warning: string | null): void {
    const warnings = warning ? [...record.warnings, warning] : record.warnings;
    this.update(record, { title: taskTitle(card), decompositionId: record.decompositionId ?? card.decompositionId ?? null, warnings });
  }

  /** The seed's ABANDONED line, in the log and in the turn's record; the lease is left to expire. */
  abandon(record: SechroomTurnRecord, reason: string): void {
    this.summary.abandoned++;
    const note = abandonedLine(record.memoryId, reason);
    this.deps.log.warn(note);
    this.update(record, { state: 'abandoned', lease: 'left_to_expire', note });
  }

  /**
   * A turn that ends with nothing to complete: canceled by the Work Layer, its lease lost,
   * canceled here (`canceledHere`: the operator's cancel, a stop now), or interrupted.
   */
  endWithoutCompletion(record: SechroomTurnRecord, loss: LeaseLoss | null, interrupted: string | null, canceledHere: string | null = null): void {
    if (loss && loss.kind !== 'cancel_requested') {
      this.summary.abandoned++;
      const note = `lease ${loss.status} during the turn — turn interrupted, nothing to complete`;
      this.deps.log.warn(`${record.memoryId}: ${note}`);
      this.update(record, { state: 'abandoned', lease: 'ended', note });
      return;
    }
    const canceledBy = loss ? `canceled by the Work Layer${loss.reason ? ` (${loss.reason})` : ''}` : record.state === 'abandoned' ? null : canceledHere;
    if (canceledBy === null) {
      if (record.state !== 'abandoned') this.abandon(record, interrupted ?? 'interrupted');
      return;
    }
    this.summary.abandoned++;
    const note = `${canceledBy} — turn interrupted, no completion sent; the lease is left to expire`;
    this.deps.log.warn(`${record.memoryId}: ${note}`);
    this.update(record, { state: 'canceled', lease: 'left_to_expire', note });
  }

  /** The outbox's word on a completion: landed (or already there), or refused for good. */
  delivered(delivery: Extract<OutboxDelivery, { kind: 'complete' }>): void {
    const record = this.byLease.get(delivery.entry.leaseId);
    if (delivery.outcome === 'rejected') {
      this.summary.abandoned++;
      if (record) this.update(record, { state: 'rejected', lease: 'ended', note: delivery.message });
      return;
    }
    this.summary.completed++;
    if (record) this.update(record, { state: 'completed', lease: 'completed', completionMemoryId: delivery.completionMemoryId });
  }

  private add(fields: Pick<SechroomTurnRecord, 'memoryId' | 'leaseId' | 'title' | 'decompositionId' | 'state' | 'lease'> & Partial<SechroomTurnRecord>) {
    const settled = SETTLED.includes(fields.state);
    const record: SechroomTurnRecord = {
      verdict: null,
      phase: null,
      completionMemoryId: null,
      note: null,
      warnings: [],
      claimedAt: this.now(),
      endedAt: settled ? this.now() : null,
      tokens: null,
      summary: null,
      git: null,
      ...fields,
    };
    this.byLease.set(record.leaseId, record);
    this.deps.onTurn?.(copy(record));
    this.settle(record);
    return record;
  }

  /** Running and recent turns only: the oldest settled records go once there are more than `RECENT_SETTLED`. */
  private settle(record: SechroomTurnRecord): void {
    if (this.byLease.get(record.leaseId) !== record) return; // already let go
    this.settled.delete(record.leaseId);
    if (!SETTLED.includes(record.state)) return;
    this.settled.add(record.leaseId);
    for (const lease of this.settled) {
      if (this.settled.size <= RECENT_SETTLED) break;
      this.settled.delete(lease);
      this.byLease.delete(lease);
    }
  }

  private now(): string {
    return new Date(this.deps.clock.now()).toISOString();
  }
}

const abandonedLine = (memoryId: string, reason: string) => `ABANDONED ${memoryId}: ${reason} — lease will expire and the task re-offers (work may re-run).`;

function copy(record: SechroomTurnRecord): SechroomTurnRecord {
  return { ...record, warnings: [...record.warnings] };
}

/** A Sechroom task as the Turns view, tray and notifications show any turn (the same TurnView as a Rost unit). */
export function turnViewOf(record: SechroomTurnRecord): TurnView {
  const phase: TurnView['phase'] = (() => {
    switch (record.state) {
      case 'claimed':
        return 'starting';
      case 'running':
        return record.lease === 'cancel_requested' ? 'canceling' : 'running';
      case 'completing':
        return 'reporting';
      case 'completed':
        return record.verdict === 'pass' ? 'succeeded' : 'failed';
      case 'canceled':
        return 'canceled';
      case 'abandoned':
      case 'rejected':
        return 'failed';
    }
  })();
  const settled = SETTLED.includes(record.state);
  return {
    id: `sechroom:${record.leaseId}`,
    kind: 'turn_execution',
    runtime: 'codex',
    seat: null,
    buildRequestId: null,
    startedAt: record.claimedAt,
    endedAt: record.endedAt,
    phase,
    pid: null,
    tokens: record.tokens,
    costUsd: null,
    outputTail: [...record.warnings, ...(record.phase ? [`lifecycle ${record.phase}`] : [])].join('\n'),
    summary: settled ? (record.summary ?? record.note) : null,
    lease: record.lease === 'cancel_requested' ? 'cancel_requested' : record.lease === 'held' ? 'active' : null,
    reason: record.state === 'completed' ? null : record.note,
    plane: 'sechroom',
    title: record.title ?? record.memoryId,
    verdict: record.verdict,
    lifecyclePhase: record.phase,
    leaseState: record.lease,
    git: record.git ?? null,
  };
}
