import type { ClaimOutcome, DispatchOffer } from '../../../shared/protocol/sechroom';
import { iso, type EmulatorContext } from '../../context';
import type { SechroomConfig } from '../config';
import type { Caller } from './auth';
import type { InstanceRow, InstanceService } from './instances';
import type { LeaseRow, LeaseService } from './leases';
import type { TaskRow, WorkStore } from './work-store';

export interface ClaimAnswer {
  outcome: ClaimOutcome;
  lease?: ReturnType<LeaseService['toWire']>;
  claimToken?: string;
  tokenVersion?: number;
  offer?: DispatchOffer;
  reason?: string;
}

/**
 * Offers and claims. A task is offered while it is `ready` under its current generation,
 * its work plan is `Accepted` and its brief `ready_for_decomposition`, to live instances whose
 * lane matches (a task without a lane goes to any) and whose capability keys cover the task's.
 * Every business outcome is a 200 body. [seed B6, v1 rules]
 */
export class DispatchService {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly config: SechroomConfig,
    private readonly work: WorkStore,
    private readonly instances: InstanceService,
    private readonly leases: LeaseService,
  ) {}

  /** The instance's offers, oldest task first. A lapsed instance sees none. */
  offers(caller: Caller, instanceId: string): DispatchOffer[] {
    const instance = this.instances.owned(caller, instanceId);
    return this.offersFor(instance);
  }

  offersFor(instance: InstanceRow): DispatchOffer[] {
    if (this.instances.status(instance) !== 'live') return [];
    const rivals = this.instances.liveInTenant(instance.tenant_id);
    return this.dispatchable(instance.tenant_id)
      .filter((task) => this.fits(task, instance))
      .slice(0, this.config.maxOffers)
      .map((task) => {
        const competing = rivals.filter((r) => this.fits(task, r));
        const rank = Math.max(
          0,
          competing.findIndex((r) => r.id === instance.id),
        );
        return this.toOffer(task, rank * this.config.claimStaggerMs);
      });
  }

  /** Every open offer of a tenant (admin view), with no instance's stagger. */
  openOffers(tenantId?: string): Array<DispatchOffer & { eligibleInstances: string[] }> {
    const tenants = tenantId ? [tenantId] : [...new Set(this.work.listTasks({ status: 'ready' }).items.map((t) => t.tenant_id))];
    return tenants.flatMap((t) => {
      const live = this.instances.liveInTenant(t);
      return this.dispatchable(t).map((task) => ({ ...this.toOffer(task, 0), eligibleInstances: live.filter((i) => this.fits(task, i)).map((i) => i.id) }));
    });
  }

  /**
   * Claims the head. When the idempotency key ends in a known generation id (the seed sends
   * `executor-run:<generationId>`), the claim is for that generation: if it is no longer the
   * current, free, eligible one the answer is `Superseded` (a stale head), which sends the
   * seed client to the direct claim. The same key again → `AlreadyHeld` while its lease lives.
   */
  claimNext(caller: Caller, instanceId: string, idempotencyKey: string): ClaimAnswer {
    const instance = this.instances.owned(caller, instanceId);
    const keyed = this.ctx.db.prepare('SELECT lease_id FROM sr_claim_keys WHERE instance_id = ? AND idempotency_key = ?').get(instance.id, idempotencyKey) as
      { lease_id: string } | undefined;
    if (keyed) {
      const lease = this.leases.get(keyed.lease_id)!;
      if (lease.status === 'active') return this.held(lease);
      return { outcome: 'Superseded', reason: `lease_${lease.status}` };
    }
    if (this.instances.status(instance) !== 'live') return { outcome: 'NoOffer', reason: 'instance_lapsed' };
    const named = this.work.generation(idempotencyKey.slice(idempotencyKey.lastIndexOf(':') + 1));
    let task: TaskRow | undefined;
    if (named) {
      const target = this.work.task(named.memory_id, instance.tenant_id);
      const held = this.leases.byGeneration(named.id);
      if (held?.status === 'active' && held.instance_id === instance.id) return this.remember(instance, idempotencyKey, this.held(held), held);
      if (!target) return { outcome: 'Superseded', reason: 'unknown_task' };
      const stale = this.staleReason(target, named.id, held, instance);
      if (stale) return { outcome: 'Superseded', reason: stale };
      task = target;
    } else {
      task = this.dispatchable(instance.tenant_id).find((t) => this.fits(t, instance));
      if (!task) return { outcome: 'NoOffer' };
    }
    const lease = this.open(instance, task, 'claim-next');
    return this.remember(instance, idempotencyKey, this.answer('Claimed', lease, task), lease);
  }

  /** `POST /me/executor-task-claims`: one generation, for one instance. Never a 409 (B15.5). */
  claimDirect(caller: Caller, generationId: string, instanceId: string): ClaimAnswer {
    const instance = this.instances.owned(caller, instanceId);
    if (this.instances.status(instance) !== 'live') return { outcome: 'InstanceLapsed' };
    const generation = this.work.generation(generationId);
    const task = generation ? this.work.task(generation.memory_id, instance.tenant_id) : undefined;
    if (!generation || !task) return { outcome: 'NotFound' };
    const held = this.leases.byGeneration(generation.id);
    if (held?.status === 'active') return held.instance_id === instance.id ? this.held(held) : { outcome: 'Taken' };
    if (task.generation_id !== generation.id || task.status !== 'ready')
      return { outcome: 'Superseded', reason: held ? `lease_${held.status}` : `task_${task.status}` };
    if (!this.eligible(task, instance)) return { outcome: 'NotEligible' };
    return this.answer('Claimed', this.open(instance, task, 'direct'), task);
  }

  /** Why a named generation is not this instance's to claim now, or null when it is. */
  private staleReason(task: TaskRow, generationId: string, held: LeaseRow | undefined, instance: InstanceRow): string | null {
    if (held?.status === 'active') return 'taken';
    if (task.generation_id !== generationId) return 'stale_generation';
    if (task.status !== 'ready') return `task_${task.status}`;
    return this.eligible(task, instance) ? null : 'not_eligible';
  }

  private open(instance: InstanceRow, task: TaskRow, via: LeaseRow['claimed_via']): LeaseRow {
    const lease = this.leases.open({
      tenant_id: instance.tenant_id,
      memory_id: task.memory_id,
      generation_id: task.generation_id!,
      instance_id: instance.id,
      workspace_id: this.work.workspaceOf(task),
      via,
    });
    this.instances.markClaimed(instance.id);
    return lease;
  }

  private remember(instance: InstanceRow, key: string, answer: ClaimAnswer, lease: LeaseRow): ClaimAnswer {
    this.ctx.db
      .prepare('INSERT OR IGNORE INTO sr_claim_keys (instance_id, idempotency_key, lease_id, created_at) VALUES (?, ?, ?, ?)')
      .run(instance.id, key, lease.id, this.ctx.now());
    return answer;
  }

  private held(lease: LeaseRow): ClaimAnswer {
    return this.answer('AlreadyHeld', lease, this.work.task(lease.memory_id));
  }

  private answer(outcome: 'Claimed' | 'AlreadyHeld', lease: LeaseRow, task: TaskRow | undefined): ClaimAnswer {
    return {
      outcome,
      lease: this.leases.toWire(lease),
      claimToken: this.leases.claimToken(lease.id, lease.token_version),
      tokenVersion: lease.token_version,
      ...(task ? { offer: { ...this.toOffer(task, 0), generationId: lease.generation_id } } : {}),
    };
  }

  /** Ready tasks whose plan and brief let them dispatch, oldest first. */
  private dispatchable(tenantId: string): TaskRow[] {
    return this.ctx.db
      .prepare(
        `SELECT t.* FROM sr_tasks t JOIN sr_decompositions d ON d.id = t.decomposition_id JOIN sr_briefs b ON b.id = d.brief_id
         WHERE t.tenant_id = ? AND t.status = 'ready' AND t.generation_id IS NOT NULL AND d.status = 'Accepted'
           AND b.status = 'ready_for_decomposition' ORDER BY t.seq`,
      )
      .all(tenantId) as TaskRow[];
  }

  private eligible(task: TaskRow, instance: InstanceRow): boolean {
    return this.dispatchable(instance.tenant_id).some((t) => t.memory_id === task.memory_id) && this.fits(task, instance);
  }

  private fits(task: TaskRow, instance: InstanceRow): boolean {
    if (task.lane !== null && task.lane !== instance.lane_id) return false;
    const have = new Set(this.instances.capabilityKeys(instance));
    return this.work.capabilityKeys(task).every((k) => have.has(k));
  }

  private toOffer(task: TaskRow, delayMs: number): DispatchOffer {
    return {
      generationId: task.generation_id!,
      memoryId: task.memory_id,
      title: task.title,
      decompositionId: task.decomposition_id,
      laneId: task.lane,
      tags: this.work.tags(task),
      suggestedClaimDelayMs: delayMs,
      offeredAt: iso(task.offered_at ?? task.created_at),
    };
  }
}
