import type { RequestStatus, ResultRequest } from '../../../shared/protocol';
import type { EmulatorContext } from '../../context';
import { iso } from '../../context';
import type { RunnerRecord } from '../runners';
import type { UnitRow } from '../units';
import type { ForgeWorkHooks } from '../work-hooks';
import { buildContextPacket } from './context-packet-builder';
import type { ForgeStore } from './forge-store';

/** What runner work does to Forge state: progress, checkpoints, ceilings. */
export class ForgeWorkEffects implements ForgeWorkHooks {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly store: ForgeStore,
  ) {}

  requestStatus(buildRequestId: string): RequestStatus | undefined {
    return this.store.row(buildRequestId)?.status;
  }

  buildContextPacket(unit: UnitRow, runner: RunnerRecord): unknown {
    return buildContextPacket(this.ctx, this.store, unit, runner);
  }

  onUnitStarted(unit: UnitRow): void {
    const request = unit.build_request_id ? this.store.row(unit.build_request_id) : undefined;
    if (!request) return;
    if (request.status === 'open') {
      this.ctx.db.prepare("UPDATE build_requests SET status = 'in_progress', updated_at = ? WHERE id = ?").run(iso(this.ctx.now()), request.id);
    }
    const run = unit.phase_run_id ? { id: unit.phase_run_id } : this.store.currentPhaseRun(request.id);
    if (run) {
      this.ctx.db
        .prepare("UPDATE phase_runs SET status = 'running', started_at = COALESCE(started_at, ?) WHERE id = ? AND status = 'queued'")
        .run(iso(this.ctx.now()), run.id);
    }
    if (unit.task_id) this.ctx.db.prepare("UPDATE tasks SET status = 'in_progress' WHERE id = ? AND status = 'pending'").run(unit.task_id);
  }

  onUnitResult(unit: UnitRow, result: ResultRequest): void {
    const request = unit.build_request_id ? this.store.row(unit.build_request_id) : undefined;
    if (!request) return;
    const cost = result.usage?.cost_usd ?? 0;
    this.ctx.db
      .prepare('UPDATE build_requests SET iterations_used = iterations_used + 1, cost_used_usd = cost_used_usd + ?, updated_at = ? WHERE id = ?')
      .run(cost, iso(this.ctx.now()), request.id);
    const task = unit.task_id ? this.store.task(unit.task_id) : undefined;
    if (task && task.status !== 'completed') {
      // A successful unit on a task is that task's checkpoint: a resume starts after it.
      if (result.status === 'succeeded') this.store.updateTask(task.id, { status: 'completed', checkpoint_ref: `checkpoint:${unit.id}` });
      else this.store.updateTask(task.id, { status: result.status === 'failed' ? 'failed' : 'pending' });
    }
    this.enforceCeilings(request.id);
  }

  /** Iteration and cost ceilings block the request until a human resumes it with a new bound. */
  private enforceCeilings(requestId: string): void {
    const row = this.store.row(requestId);
    if (!row || row.status !== 'in_progress') return;
    const reason = ceilingReached(row);
    if (!reason) return;
    this.ctx.db
      .prepare("UPDATE build_requests SET status = 'blocked', status_reason = ?, updated_at = ? WHERE id = ?")
      .run(reason, iso(this.ctx.now()), requestId);
    this.ctx.events.emit('forge.request.blocked', { build_request_id: requestId, reason });
  }
}

export function ceilingReached(row: {
  max_iterations: number | null;
  iterations_used: number;
  cost_budget_usd: string | null;
  cost_used_usd: number;
}): string | null {
  if (row.max_iterations !== null && row.iterations_used >= row.max_iterations) return 'iteration ceiling reached';
  if (row.cost_budget_usd !== null && row.cost_used_usd >= Number(row.cost_budget_usd)) return 'cost budget reached';
  return null;
}
