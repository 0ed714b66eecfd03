import { BRIEF_VERB_FROM, type BriefStatus, type Verdict } from '../../../shared/protocol/sechroom';
import { iso, type EmulatorContext } from '../../context';
import { HttpError } from '../../http/reply';
import type { LeaseService } from './leases';
import { DEFAULT_PLAN_TITLE, type BriefRow, type DecompositionRow, type WorkStore } from './work-store';

export type LifecycleAction = 'pause' | 'resume' | 'cancel';
const STATUS_TARGET = {
  'status:parked': 'parked',
  'status:ready_for_decomposition': 'ready_for_decomposition',
  'status:superseded': 'superseded',
} as const satisfies Record<string, BriefStatus>;
export type StatusTarget = keyof typeof STATUS_TARGET;

/** Which brief statuses each move leaves from (shared with the operator's Work view). Terminal: superseded, cancelled. [v1] */
const FROM: Record<LifecycleAction | StatusTarget, readonly BriefStatus[]> = {
  pause: BRIEF_VERB_FROM.pause,
  resume: BRIEF_VERB_FROM.resume,
  cancel: BRIEF_VERB_FROM.cancel,
  'status:parked': BRIEF_VERB_FROM.park,
  'status:ready_for_decomposition': BRIEF_VERB_FROM.unpark,
  'status:superseded': BRIEF_VERB_FROM.supersede,
};
const ACTION_TO: Record<LifecycleAction, BriefStatus> = { pause: 'paused', resume: 'ready_for_decomposition', cancel: 'cancelled' };

/**
 * The operator lifecycle of briefs and work plans, and its effect on dispatch: only a
 * `ready_for_decomposition` brief with an `Accepted` plan offers tasks; pause and park keep
 * running leases; cancel ends them at once; supersede asks them to stop. [seed B13 verbs, v1 effects]
 */
export class WorkLifecycle {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly work: WorkStore,
    private readonly leases: LeaseService,
  ) {
    leases.onCompleted = (memoryId, verdict) => this.taskCompleted(memoryId, verdict);
  }

  act(tenantId: string, briefId: string, action: LifecycleAction, why: { reasonCode: string; source: string; reason?: string | null | undefined }) {
    const brief = this.work.requireBrief(briefId, tenantId);
    const to = ACTION_TO[action];
    const changed = this.move(brief, to, FROM[action], { reason_code: why.reasonCode, reason: why.reason ?? null, source: why.source });
    return { ...this.briefWire(this.work.requireBrief(briefId)), action, changed };
  }

  setStatus(tenantId: string, briefId: string, target: StatusTarget, source: string) {
    const brief = this.work.requireBrief(briefId, tenantId);
    const to = STATUS_TARGET[target];
    const changed = this.move(brief, to, FROM[target], { source });
    return { id: brief.id, from: brief.status, to: target, status: to, changed };
  }

  /** `work-plan resume`: a Failed plan is Accepted again and its plan-invalid tasks re-offer. */
  resumePlan(tenantId: string, id: string) {
    const plan = this.work.requireDecomposition(id, tenantId);
    if (plan.status !== 'Failed') throw new HttpError(409, 'invalid_transition', `only a Failed work plan resumes (this one is ${plan.status})`);
    const reopen = this.work.listTasks({ decomposition_id: id, status: 'completed' }).items.filter((t) => t.verdict === 'plan-invalid');
    for (const task of reopen) this.work.newGeneration(task.memory_id);
    this.work.setDecompositionStatus(id, 'Accepted');
    return { id, status: 'Accepted' as const, reoffered: reopen.length };
  }

  /** `work-plan return-for-revision`: this plan stops offering; a Pending successor holds its unfinished tasks. */
  returnForRevision(tenantId: string, id: string, notes: string) {
    const plan = this.work.requireDecomposition(id, tenantId);
    if (!['Pending', 'Accepted', 'Failed'].includes(plan.status)) {
      throw new HttpError(409, 'invalid_transition', `a ${plan.status} work plan cannot be returned for revision`);
    }
    this.work.setDecompositionStatus(id, 'ReturnedForRevision');
    const next = this.work.createDecomposition({
      tenant_id: tenantId,
      brief_id: plan.brief_id,
      title: plan.title,
      status: 'Pending',
      revision_of: id,
      revision_notes: notes,
    });
    for (const task of this.work.listTasks({ decomposition_id: id }).items.reverse()) {
      if (task.status === 'completed' && task.verdict === 'pass') continue;
      if (task.status === 'ready') this.work.setTaskStatus(task.memory_id, 'canceled', { reason: 'returned_for_revision' });
      this.work.createTask({
        tenant_id: tenantId,
        decomposition_id: next.id,
        title: task.title,
        objective: task.objective,
        acceptance: task.acceptance,
        boundaries: task.boundaries,
        closeout: task.closeout,
        lane: task.lane,
        capability_keys: this.work.capabilityKeys(task),
        context_pack: task.pack_slug && task.pack_version ? { slug: task.pack_slug, version: task.pack_version } : null,
      });
    }
    return { id, status: 'ReturnedForRevision' as const, newSuggestionId: next.id };
  }

  /** `work-plan accept`: a Pending plan starts offering its tasks. */
  acceptPlan(tenantId: string, id: string) {
    const plan = this.work.requireDecomposition(id, tenantId);
    if (plan.status !== 'Pending') throw new HttpError(409, 'invalid_transition', `only a Pending work plan can be accepted (this one is ${plan.status})`);
    this.work.setDecompositionStatus(id, 'Accepted');
    return this.decompositionWire(this.work.requireDecomposition(id));
  }

  briefWire(b: BriefRow) {
    return {
      id: b.id,
      title: b.title,
      status: b.status,
      workspaceId: b.workspace_id,
      reasonCode: b.reason_code,
      reason: b.reason,
      source: b.source,
      updatedAt: iso(b.updated_at),
    };
  }

  decompositionWire(d: DecompositionRow) {
    return {
      id: d.id,
      briefId: d.brief_id,
      title: d.title,
      status: d.status,
      taskCount: this.work.taskCount(d.id),
      revisionOf: d.revision_of,
      revisionNotes: d.revision_notes,
      createdAt: iso(d.created_at),
      updatedAt: iso(d.updated_at),
    };
  }

  private move(
    brief: BriefRow,
    to: BriefStatus,
    from: readonly BriefStatus[],
    why: { reason_code?: string | null | undefined; reason?: string | null | undefined; source?: string | null | undefined },
  ): boolean {
    if (brief.status === to) return false;
    if (!from.includes(brief.status)) throw new HttpError(409, 'invalid_transition', `a ${brief.status} brief cannot become ${to}`);
    this.work.setBriefStatus(brief.id, to, why);
    this.ctx.events.emit('sechroom.brief.status', {
      brief_id: brief.id,
      from: brief.status,
      to,
      source: why.source ?? null,
      reason_code: why.reason_code ?? null,
    });
    if (to === 'cancelled') this.cancelBrief(brief);
    if (to === 'superseded') this.stopLeases(brief, 'brief_superseded');
    return true;
  }

  private plansOf(brief: BriefRow): DecompositionRow[] {
    return this.work.listDecompositions({ brief_id: brief.id }).items;
  }

  private cancelBrief(brief: BriefRow): void {
    for (const plan of this.plansOf(brief)) {
      const tasks = this.work.listTasks({ decomposition_id: plan.id }).items;
      for (const lease of this.leases.activeFor(tasks.map((t) => t.memory_id))) this.leases.cancel(lease, 'brief_cancelled');
      for (const task of tasks)
        if (task.status === 'ready' || task.status === 'leased') this.work.setTaskStatus(task.memory_id, 'canceled', { reason: 'brief_cancelled' });
      if (plan.status !== 'Completed') this.work.setDecompositionStatus(plan.id, 'Cancelled');
    }
  }

  private stopLeases(brief: BriefRow, reason: string): void {
    for (const plan of this.plansOf(brief)) {
      const tasks = this.work.listTasks({ decomposition_id: plan.id }).items;
      for (const lease of this.leases.activeFor(tasks.map((t) => t.memory_id))) this.leases.requestCancel(lease.id, reason);
    }
  }

  /** plan-invalid fails the plan (until resumed); the plan completes when no task is left open. */
  private taskCompleted(memoryId: string, verdict: Verdict): void {
    const task = this.work.task(memoryId);
    const plan = task ? this.work.decomposition(task.decomposition_id) : undefined;
    if (!plan || plan.status !== 'Accepted') return;
    if (verdict === 'plan-invalid') {
      this.work.setDecompositionStatus(plan.id, 'Failed');
      return;
    }
    const open = this.work.listTasks({ decomposition_id: plan.id }).items.some((t) => t.status === 'ready' || t.status === 'leased');
    if (!open && plan.title !== DEFAULT_PLAN_TITLE) this.work.setDecompositionStatus(plan.id, 'Completed');
  }
}
