import type { EmulatorContext } from '../../context';
import { nextSeq } from '../../db/database';
import { HttpError } from '../../http/reply';
import type { AppendTasksInput, DecomposeFromPlanInput, PlanTaskInput, ProduceResidueInput } from '../../../shared/protocol/sechroom-work-plans';
import { newSechroomId } from '../ids';
import type { DecompositionRow, WorkStore } from './work-store';

/**
 * The work-plan and work-task verbs of seed B13 as thin state machines: a brief decomposes
 * into a Pending plan (its tasks from a hand-authored list, or none: the emulator does not
 * plan), tasks are appended (`ready` on a plan not accepted yet, `proposed` on a running one
 * until `accept` ratifies them), and a task's residue is produced, or marked as none once per
 * (plan, task).
 */
export class WorkPlans {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly work: WorkStore,
  ) {}

  /** `work-plan create <briefId>`: a Pending plan of the brief. */
  decompose(tenantId: string, briefId: string) {
    const brief = this.work.requireBrief(briefId, tenantId);
    const plan = this.work.createDecomposition({ tenant_id: tenantId, brief_id: brief.id, title: brief.title, status: 'Pending' });
    return { suggestionId: plan.id };
  }

  /** `work-plan create-from-tasks <briefId>`: a Pending plan holding the given tasks. */
  decomposeFromPlan(tenantId: string, briefId: string, input: DecomposeFromPlanInput) {
    this.work.requireBrief(briefId, tenantId);
    const plan = this.work.createDecomposition({ tenant_id: tenantId, brief_id: briefId, title: input.project, status: 'Pending' });
    for (const task of input.tasks) this.addTask(plan, task, 'ready');
    return { suggestionId: plan.id, taskCount: input.tasks.length };
  }

  /** `work-plan append <id>`: tasks on a plan that can still take them. */
  appendTasks(tenantId: string, id: string, input: AppendTasksInput) {
    const plan = this.work.requireDecomposition(id, tenantId);
    if (plan.status !== 'Pending' && plan.status !== 'Accepted') {
      throw new HttpError(409, 'invalid_transition', `a ${plan.status} work plan takes no more tasks`);
    }
    const landedAs = plan.status === 'Accepted' ? ('proposed' as const) : ('ready' as const);
    const appendedTaskIds = input.tasks.map((task) => this.addTask(plan, task, landedAs));
    return { id, appendedTaskIds, landedAs };
  }

  /** `work-plan accept` also ratifies what was appended to a running plan: its proposed tasks are offered. */
  ratify(id: string): number {
    const proposed = this.work.listTasks({ decomposition_id: id, status: 'proposed' }).items;
    for (const task of proposed) {
      this.work.setTaskStatus(task.memory_id, 'ready');
      this.work.newGeneration(task.memory_id);
    }
    return proposed.length;
  }

  /** `work-task residue-produce <taskId>`. */
  produceResidue(tenantId: string, input: ProduceResidueInput) {
    const task = this.work.requireTask(input.taskId, tenantId);
    const produced = input.residues.map((residue) => {
      const id = `res_${newSechroomId('mem').slice(4)}`;
      this.ctx.db
        .prepare('INSERT INTO sr_residues (id, seq, tenant_id, memory_id, kind, title, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(id, nextSeq(this.ctx.db, 'sr_residues'), tenantId, task.memory_id, residue.kind, residue.title ?? null, residue.body ?? null, this.ctx.now());
      return { id, taskId: task.memory_id, kind: residue.kind };
    });
    return { produced };
  }

  /** `work-task mark-no-residue <taskId> --decomposition <wlp>`: keyed (plan, task); `minted` only the first time. */
  markNoResidue(tenantId: string, input: { taskId: string; decompositionId: string }) {
    const task = this.work.requireTask(input.taskId, tenantId);
    if (task.decomposition_id !== input.decompositionId) {
      throw new HttpError(400, 'invalid_request', `task ${task.memory_id} is not a task of ${input.decompositionId}`);
    }
    const inserted = this.ctx.db
      .prepare('INSERT OR IGNORE INTO sr_no_residue (tenant_id, decomposition_id, memory_id, created_at) VALUES (?, ?, ?, ?)')
      .run(tenantId, input.decompositionId, task.memory_id, this.ctx.now());
    return { taskId: task.memory_id, decompositionId: input.decompositionId, minted: Number(inserted.changes) > 0 };
  }

  private addTask(plan: DecompositionRow, task: PlanTaskInput, status: 'ready' | 'proposed'): string {
    const row = this.work.createTask({
      tenant_id: plan.tenant_id,
      decomposition_id: plan.id,
      title: task.title,
      objective: task.objective,
      acceptance: task.acceptance,
      boundaries: task.boundaries,
      closeout: task.closeout,
      lane: task.lane ?? null,
      capability_keys: task.capabilityKeys,
    });
    if (status === 'proposed') this.work.setTaskStatus(row.memory_id, 'proposed');
    return row.memory_id;
  }
}
