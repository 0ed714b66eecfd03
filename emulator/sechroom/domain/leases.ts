import { createHmac, randomBytes } from 'node:crypto';
import type { LeaseCompleteInput, Verdict } from '../../../shared/protocol/sechroom';
import { iso, type EmulatorContext } from '../../context';
import { safeEqual } from '../../crypto';
import { getMeta, nextSeq, setMeta } from '../../db/database';
import { HttpError } from '../../http/reply';
import type { SechroomConfig } from '../config';
import { newSechroomId } from '../ids';
import type { Caller } from './auth';
import type { WorkStore } from './work-store';

export type LeaseStatus = 'active' | 'completed' | 'expired' | 'canceled';

export interface LeaseRow {
  id: string;
  seq: number;
  tenant_id: string;
  memory_id: string;
  generation_id: string;
  instance_id: string;
  workspace_id: string;
  status: LeaseStatus;
  token_version: number;
  claimed_via: 'claim-next' | 'direct';
  expires_at: number;
  last_heartbeat_at: number | null;
  heartbeats: number;
  cancel_requested_at: number | null;
  cancel_reason: string | null;
  ended_at: number | null;
  end_reason: string | null;
  created_at: number;
}

export interface CompletionRow {
  id: string;
  seq: number;
  tenant_id: string;
  lease_id: string;
  memory_id: string;
  instance_id: string;
  verdict: Verdict;
  text: string;
  source: string;
  title: string;
  received_at: number;
}

/** Only token version 1 exists: the seed hard-codes it and we never rotate a claim token. [v1] */
export const TOKEN_VERSION = 1;

/**
 * Leases: claim tokens, heartbeats that extend the TTL, exactly-once completion, expiry that
 * re-offers under a new generation, and cancellation (requested, or ended by the brief).
 */
export class LeaseService {
  /** Set by the lifecycle: what a completed task means for its work plan. */
  onCompleted: (memoryId: string, verdict: Verdict) => void = () => {};

  constructor(
    private readonly ctx: EmulatorContext,
    private readonly config: SechroomConfig,
    private readonly work: WorkStore,
  ) {}

  /** Claim tokens are an HMAC of the lease id under a per-database key: a repeat claim gets the same token, nothing secret is stored per lease. */
  claimToken(leaseId: string, version = TOKEN_VERSION): string {
    let key = getMeta(this.ctx.db, 'sechroom_claim_key');
    if (!key) {
      key = randomBytes(32).toString('hex');
      setMeta(this.ctx.db, 'sechroom_claim_key', key);
    }
    return `sct_${createHmac('sha256', key).update(`${leaseId}:${version}`).digest('base64url')}`;
  }

  open(input: {
    tenant_id: string;
    memory_id: string;
    generation_id: string;
    instance_id: string;
    workspace_id: string;
    via: LeaseRow['claimed_via'];
  }): LeaseRow {
    const now = this.ctx.now();
    const id = newSechroomId('lse');
    this.ctx.db
      .prepare(
        `INSERT INTO sr_leases (id, seq, tenant_id, memory_id, generation_id, instance_id, workspace_id, status, token_version, claimed_via, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, 'active', ?, ?, ?, ?)`,
      )
      .run(
        id,
        nextSeq(this.ctx.db, 'sr_leases'),
        input.tenant_id,
        input.memory_id,
        input.generation_id,
        input.instance_id,
        input.workspace_id,
        TOKEN_VERSION,
        input.via,
        now + this.config.leaseTtlMs,
        now,
      );
    this.work.setTaskStatus(input.memory_id, 'leased');
    this.ctx.events.emit('sechroom.lease.claimed', {
      lease_id: id,
      memory_id: input.memory_id,
      generation_id: input.generation_id,
      instance_id: input.instance_id,
      via: input.via,
    });
    return this.get(id)!;
  }

  get(id: string): LeaseRow | undefined {
    return this.ctx.db.prepare('SELECT * FROM sr_leases WHERE id = ?').get(id) as LeaseRow | undefined;
  }

  byGeneration(generationId: string): LeaseRow | undefined {
    return this.ctx.db.prepare('SELECT * FROM sr_leases WHERE generation_id = ?').get(generationId) as LeaseRow | undefined;
  }

  list(filter: { status?: string; instance_id?: string; memory_id?: string } = {}): LeaseRow[] {
    return this.ctx.db
      .prepare('SELECT * FROM sr_leases WHERE (? IS NULL OR status = ?) AND (? IS NULL OR instance_id = ?) AND (? IS NULL OR memory_id = ?) ORDER BY seq')
      .all(
        filter.status ?? null,
        filter.status ?? null,
        filter.instance_id ?? null,
        filter.instance_id ?? null,
        filter.memory_id ?? null,
        filter.memory_id ?? null,
      ) as LeaseRow[];
  }

  heartbeat(caller: Caller, leaseId: string, claimToken: string, tokenVersion: number | undefined) {
    const lease = this.authorized(caller, leaseId, claimToken, tokenVersion);
    if (lease.status !== 'active') {
      this.ctx.events.emit('sechroom.lease.heartbeat', { lease_id: lease.id, answered: lease.status });
      return { leaseId: lease.id, status: lease.status, expiresAt: iso(lease.expires_at), reason: lease.end_reason };
    }
    const now = this.ctx.now();
    this.ctx.db
      .prepare('UPDATE sr_leases SET expires_at = ?, last_heartbeat_at = ?, heartbeats = heartbeats + 1 WHERE id = ?')
      .run(now + this.config.leaseTtlMs, now, lease.id);
    const status = lease.cancel_requested_at !== null ? 'cancel_requested' : 'active';
    this.ctx.events.emit('sechroom.lease.heartbeat', { lease_id: lease.id, answered: status });
    return { leaseId: lease.id, status, expiresAt: iso(now + this.config.leaseTtlMs), reason: status === 'cancel_requested' ? lease.cancel_reason : null };
  }

  /**
   * Exactly once per lease: the first completion is recorded; a repeat with the same verdict,
   * text, source and title answers the same completion (`repeated: true`); a different one is 409.
   */
  complete(caller: Caller, leaseId: string, input: LeaseCompleteInput) {
    const lease = this.authorized(caller, leaseId, input.claimToken, input.tokenVersion);
    if (input.executorInstanceId !== lease.instance_id) throw new HttpError(403, 'foreign_lease', 'this lease is held by another executor instance');
    const prior = this.completionOf(lease.id);
    if (prior) {
      const same = prior.verdict === input.verdict && prior.text === input.text && prior.source === input.source && prior.title === input.title;
      if (!same) throw new HttpError(409, 'already_completed', 'this lease was already completed with another result', { completionMemoryId: prior.id });
      return { outcome: 'Completed' as const, completionMemoryId: prior.id, leaseId: lease.id, repeated: true };
    }
    if (lease.status === 'expired') throw new HttpError(409, 'lease_expired', 'the lease expired; the task was offered again');
    if (lease.status === 'canceled') throw new HttpError(409, 'lease_canceled', `the lease was canceled (${lease.end_reason ?? 'canceled'})`);
    const now = this.ctx.now();
    const id = newSechroomId('mem');
    this.ctx.db.transaction(() => {
      this.ctx.db
        .prepare(
          `INSERT INTO sr_completions (id, seq, tenant_id, lease_id, memory_id, instance_id, verdict, text, source, title, received_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          nextSeq(this.ctx.db, 'sr_completions'),
          lease.tenant_id,
          lease.id,
          lease.memory_id,
          lease.instance_id,
          input.verdict,
          input.text,
          input.source,
          input.title,
          now,
        );
      this.end(lease.id, 'completed', input.verdict);
      this.work.setTaskStatus(lease.memory_id, 'completed', { verdict: input.verdict });
    })();
    this.ctx.events.emit('sechroom.lease.completed', { lease_id: lease.id, memory_id: lease.memory_id, verdict: input.verdict, completion_memory_id: id });
    this.onCompleted(lease.memory_id, input.verdict);
    return { outcome: 'Completed' as const, completionMemoryId: id, leaseId: lease.id, repeated: false };
  }

  completionOf(leaseId: string): CompletionRow | undefined {
    return this.ctx.db.prepare('SELECT * FROM sr_completions WHERE lease_id = ?').get(leaseId) as CompletionRow | undefined;
  }

  listCompletions(filter: { memory_id?: string } = {}): CompletionRow[] {
    return this.ctx.db
      .prepare('SELECT * FROM sr_completions WHERE ? IS NULL OR memory_id = ? ORDER BY seq')
      .all(filter.memory_id ?? null, filter.memory_id ?? null) as CompletionRow[];
  }

  /** Ends every active lease past its TTL; each task is offered again under a new generation. */
  sweep(): number {
    const due = this.ctx.db.prepare("SELECT * FROM sr_leases WHERE status = 'active' AND expires_at <= ?").all(this.ctx.now()) as LeaseRow[];
    for (const lease of due) this.expire(lease, 'ttl');
    return due.length;
  }

  /** Expiry (TTL or admin): a lease with a requested cancel ends its task; otherwise the task re-offers. */
  expire(lease: LeaseRow, reason: 'ttl' | 'admin'): LeaseRow {
    if (lease.status !== 'active') throw new HttpError(409, 'lease_not_active', `lease is ${lease.status}`);
    this.end(lease.id, 'expired', reason);
    let generation: string | null = null;
    const task = this.work.task(lease.memory_id);
    if (task && task.generation_id === lease.generation_id && task.status === 'leased') {
      if (lease.cancel_requested_at !== null) this.work.setTaskStatus(task.memory_id, 'canceled', { reason: lease.cancel_reason ?? 'cancel_requested' });
      else generation = this.work.newGeneration(task.memory_id);
    }
    this.ctx.events.emit('sechroom.lease.expired', { lease_id: lease.id, memory_id: lease.memory_id, reason, new_generation_id: generation });
    return this.get(lease.id)!;
  }

  /** [v1] Asks the executor to stop: the next heartbeat answers `cancel_requested`; the lease ends by completion or expiry. */
  requestCancel(leaseId: string, reason: string): LeaseRow {
    const lease = this.get(leaseId);
    if (!lease) throw new HttpError(404, 'not_found', 'unknown lease');
    if (lease.status !== 'active') throw new HttpError(409, 'lease_not_active', `lease is ${lease.status}`);
    if (lease.cancel_requested_at === null) {
      this.ctx.db.prepare('UPDATE sr_leases SET cancel_requested_at = ?, cancel_reason = ? WHERE id = ?').run(this.ctx.now(), reason, lease.id);
      this.ctx.events.emit('sechroom.lease.cancel_requested', { lease_id: lease.id, memory_id: lease.memory_id, reason });
    }
    return this.get(lease.id)!;
  }

  /** Ends an active lease at once (its brief was cancelled): completion is refused from now on. */
  cancel(lease: LeaseRow, reason: string): void {
    if (lease.status !== 'active') return;
    this.end(lease.id, 'canceled', reason);
    this.ctx.events.emit('sechroom.lease.canceled', { lease_id: lease.id, memory_id: lease.memory_id, reason });
  }

  activeFor(memoryIds: string[]): LeaseRow[] {
    if (!memoryIds.length) return [];
    return this.ctx.db
      .prepare(`SELECT * FROM sr_leases WHERE status = 'active' AND memory_id IN (${memoryIds.map(() => '?').join(',')})`)
      .all(...memoryIds) as LeaseRow[];
  }

  toWire(lease: LeaseRow) {
    return {
      id: lease.id,
      memoryId: lease.memory_id,
      workspaceId: lease.workspace_id,
      generationId: lease.generation_id,
      expiresAt: iso(lease.expires_at),
      executorInstanceId: lease.instance_id,
      tokenVersion: lease.token_version,
    };
  }

  toRecord(lease: LeaseRow) {
    return {
      ...this.toWire(lease),
      status: lease.status,
      claimedVia: lease.claimed_via,
      heartbeats: lease.heartbeats,
      lastHeartbeatAt: lease.last_heartbeat_at === null ? null : iso(lease.last_heartbeat_at),
      cancelRequested: lease.cancel_requested_at !== null,
      cancelReason: lease.cancel_reason,
      endedAt: lease.ended_at === null ? null : iso(lease.ended_at),
      endReason: lease.end_reason,
      createdAt: iso(lease.created_at),
    };
  }

  private end(id: string, status: Exclude<LeaseStatus, 'active'>, reason: string): void {
    this.ctx.db.prepare('UPDATE sr_leases SET status = ?, ended_at = ?, end_reason = ? WHERE id = ?').run(status, this.ctx.now(), reason, id);
  }

  private authorized(caller: Caller, leaseId: string, claimToken: string, tokenVersion: number | undefined): LeaseRow {
    const lease = this.get(leaseId);
    if (!lease || lease.tenant_id !== caller.tenantId) throw new HttpError(404, 'unknown_lease', 'no such lease');
    if (!safeEqual(claimToken, this.claimToken(lease.id, lease.token_version)))
      throw new HttpError(403, 'invalid_claim_token', 'the claim token does not match this lease');
    if (tokenVersion !== undefined && tokenVersion !== lease.token_version) {
      throw new HttpError(409, 'stale_token_version', `token version ${tokenVersion} is not the lease's (${lease.token_version})`);
    }
    return lease;
  }
}
