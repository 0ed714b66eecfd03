import type {
  BuildRequestSummary,
  ChangesetSummary,
  GateSummary,
  PhaseRunStatus,
  PhaseRunSummary,
  PlanVersionSummary,
  RequestStatus,
  RequestShowOutput,
  TaskSummary,
} from '../../../shared/protocol';
import { nextSeq, parseJson } from '../../db/database';
import type { EmulatorContext } from '../../context';
import { iso } from '../../context';
import { newId } from '../../crypto';
import { HttpError } from '../../http/reply';
import {
  AddChangesetInputSchema,
  AddGateInputSchema,
  AddPhaseRunInputSchema,
  AddPlanVersionInputSchema,
  AddTaskInputSchema,
  CreateBuildRequestInputSchema,
  CreateProjectInputSchema,
  UpdateBuildRequestInputSchema,
  UpdateGateInputSchema,
  UpdateTaskInputSchema,
  type AddChangesetInput,
  type AddGateInput,
  type AddPhaseRunInput,
  type AddPlanVersionInput,
  type AddTaskInput,
  type CreateBuildRequestInput,
  type CreateProjectInput,
  type UpdateBuildRequestInput,
  type UpdateGateInput,
  type UpdateTaskInput,
} from './forge-inputs';

export interface ProjectRecord {
  id: string;
  tenant_id: string;
  name: string;
  slug: string | null;
  status: string;
  base_branch: string | null;
  created_at: string;
}

export interface BuildRequestRow extends BuildRequestSummary {
  tenant_id: string;
  risk_ceiling: BuildRequestSummary['inferred_risk'] | null;
  cost_used_usd: number;
  status_reason: string | null;
  updated_at: string;
}

type PlanVersionRow = Omit<PlanVersionSummary, 'clarifying_questions' | 'clarification_answers'> & {
  clarifying_questions: string;
  clarification_answers: string;
};

/** The phase-run state that matches a request created directly in some status. */
const PHASE_RUN_FOR_STATUS: Record<RequestStatus, PhaseRunStatus> = {
  open: 'queued',
  in_progress: 'running',
  paused: 'paused',
  blocked: 'paused',
  canceled: 'canceled',
  closed: 'succeeded',
};

const SUMMARY_KEYS = [
  'id',
  'software_project_id',
  'title',
  'status',
  'source_channel',
  'current_phase',
  'inferred_risk',
  'automation_mode',
  'max_iterations',
  'max_wall_clock_seconds',
  'cost_budget_usd',
  'iterations_used',
  'created_at',
  'status_reason',
] as const;

export function toSummary(row: BuildRequestRow): BuildRequestSummary {
  return Object.fromEntries(SUMMARY_KEYS.map((k) => [k, row[k]])) as BuildRequestSummary;
}

/** Projects, build requests and their children (phase runs, gates, plans, tasks, changesets). */
export class ForgeStore {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly defaultTenantId: () => string,
  ) {}

  private get stamp(): string {
    return iso(this.ctx.now());
  }

  createProject(raw: CreateProjectInput): ProjectRecord {
    const input = CreateProjectInputSchema.parse(raw);
    const slug =
      input.slug ??
      input.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
    const project: ProjectRecord = {
      id: input.id ?? newId(),
      tenant_id: input.tenant_id ?? this.defaultTenantId(),
      name: input.name,
      slug: slug || null,
      status: input.status ?? 'active',
      base_branch: input.base_branch ?? 'main',
      created_at: this.stamp,
    };
    this.ctx.db
      .prepare('INSERT INTO projects (id, tenant_id, name, slug, status, base_branch, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(project.id, project.tenant_id, project.name, project.slug, project.status, project.base_branch, project.created_at);
    this.ctx.events.emit('forge.project.created', { project_id: project.id });
    return project;
  }

  project(id: string): ProjectRecord | undefined {
    return this.ctx.db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as ProjectRecord | undefined;
  }

  listProjects(tenantId?: string): ProjectRecord[] {
    return this.ctx.db
      .prepare('SELECT * FROM projects WHERE ? IS NULL OR tenant_id = ? ORDER BY created_at')
      .all(tenantId ?? null, tenantId ?? null) as ProjectRecord[];
  }

  createBuildRequest(raw: CreateBuildRequestInput): BuildRequestSummary {
    const input = CreateBuildRequestInputSchema.parse(raw);
    const tenantId = input.tenant_id ?? this.defaultTenantId();
    let projectId = input.software_project_id;
    if (projectId) {
      const project = this.project(projectId);
      if (!project || project.tenant_id !== tenantId) throw new HttpError(404, 'not_found', 'software_project_id: unknown project');
    } else {
      projectId = (this.listProjects(tenantId)[0] ?? this.createProject({ tenant_id: tenantId, name: 'Default project' })).id;
    }
    const id = input.id ?? newId();
    const phase = input.current_phase ?? 'intake';
    const stamp = this.stamp;
    this.ctx.db
      .prepare(
        `INSERT INTO build_requests (id, seq, tenant_id, software_project_id, title, status, source_channel, current_phase,
           inferred_risk, risk_ceiling, automation_mode, max_iterations, max_wall_clock_seconds, cost_budget_usd,
           iterations_used, status_reason, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        nextSeq(this.ctx.db, 'build_requests'),
        tenantId,
        projectId,
        input.title,
        input.status ?? 'open',
        input.source_channel ?? 'ui',
        phase,
        input.inferred_risk ?? 'low',
        input.risk_ceiling ?? null,
        input.automation_mode ?? 'pull_request_only',
        input.max_iterations ?? null,
        input.max_wall_clock_seconds ?? null,
        input.cost_budget_usd ?? null,
        input.iterations_used ?? 0,
        input.status_reason ?? null,
        stamp,
        stamp,
      );
    if (input.with_phase_run !== false) {
      this.addPhaseRun(id, { phase, status: PHASE_RUN_FOR_STATUS[input.status ?? 'open'] });
    }
    this.ctx.events.emit('forge.request.created', { build_request_id: id, status: input.status ?? 'open' });
    return this.summary(id)!;
  }

  updateBuildRequest(id: string, raw: UpdateBuildRequestInput): BuildRequestSummary {
    const patch = UpdateBuildRequestInputSchema.parse(raw);
    if (!this.row(id)) throw new HttpError(404, 'not_found', 'unknown build request');
    const entries = Object.entries(patch).filter(([, v]) => v !== undefined);
    if (entries.length) {
      const sets = entries.map(([k]) => `${k} = ?`).join(', ');
      this.ctx.db.prepare(`UPDATE build_requests SET ${sets}, updated_at = ? WHERE id = ?`).run(...entries.map(([, v]) => v), this.stamp, id);
      this.ctx.events.emit('forge.request.updated', { build_request_id: id, fields: entries.map(([k]) => k) });
      // Unpausing or unblocking by hand makes held units assignable.
      this.ctx.notifyWork();
    }
    return this.summary(id)!;
  }

  row(id: string, tenantId?: string): BuildRequestRow | undefined {
    const row = this.ctx.db.prepare('SELECT * FROM build_requests WHERE id = ?').get(id) as BuildRequestRow | undefined;
    return row && (!tenantId || row.tenant_id === tenantId) ? row : undefined;
  }

  summary(id: string, tenantId?: string): BuildRequestSummary | undefined {
    const row = this.row(id, tenantId);
    return row ? toSummary(row) : undefined;
  }

  list(tenantId: string | undefined, limit = 50): BuildRequestSummary[] {
    const rows = this.ctx.db
      .prepare('SELECT * FROM build_requests WHERE ? IS NULL OR tenant_id = ? ORDER BY seq DESC LIMIT ?')
      .all(tenantId ?? null, tenantId ?? null, limit) as BuildRequestRow[];
    return rows.map(toSummary);
  }

  show(id: string, tenantId?: string): RequestShowOutput {
    const row = this.row(id, tenantId);
    if (!row) throw new HttpError(404, 'not_found', 'build_request_id: no such build request');
    const all = <T>(sql: string) => this.ctx.db.prepare(sql).all(id) as T[];
    return {
      request: toSummary(row),
      current_phase: row.current_phase,
      phase_runs: all<PhaseRunSummary & { seq: number }>('SELECT * FROM phase_runs WHERE build_request_id = ? ORDER BY seq').map(({ seq: _s, ...r }) => r),
      gates: all<GateSummary & { seq: number }>('SELECT * FROM gates WHERE build_request_id = ? ORDER BY seq').map(({ seq: _s, ...g }) => g),
      plan_versions: all<PlanVersionRow>('SELECT * FROM plan_versions WHERE build_request_id = ? ORDER BY version_no').map((p) => ({
        ...p,
        clarifying_questions: parseJson<string[]>(p.clarifying_questions, []),
        clarification_answers: parseJson<PlanVersionSummary['clarification_answers']>(p.clarification_answers, []),
      })),
      changesets: all<ChangesetSummary & { seq: number }>('SELECT * FROM changesets WHERE build_request_id = ? ORDER BY seq').map(({ seq: _s, ...c }) => c),
      tasks: all<TaskSummary>('SELECT * FROM tasks WHERE build_request_id = ? ORDER BY ordinal'),
    };
  }

  addPhaseRun(requestId: string, raw: AddPhaseRunInput): PhaseRunSummary {
    const input = AddPhaseRunInputSchema.parse(raw);
    this.requireRequest(requestId);
    const stamp = this.stamp;
    const status = input.status ?? 'queued';
    const previous = this.ctx.db.prepare('SELECT MAX(attempt) AS a FROM phase_runs WHERE build_request_id = ? AND phase = ?').get(requestId, input.phase) as {
      a: number | null;
    };
    const run: PhaseRunSummary = {
      id: input.id ?? newId(),
      build_request_id: requestId,
      phase: input.phase,
      status,
      attempt: input.attempt ?? (previous.a ?? 0) + 1,
      started_at: status === 'queued' ? null : stamp,
      completed_at: ['succeeded', 'failed', 'canceled'].includes(status) ? stamp : null,
      created_at: stamp,
    };
    this.ctx.db
      .prepare(
        `INSERT INTO phase_runs (id, seq, build_request_id, phase, status, attempt, started_at, completed_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(run.id, nextSeq(this.ctx.db, 'phase_runs'), requestId, run.phase, run.status, run.attempt, run.started_at, run.completed_at, run.created_at);
    return run;
  }

  /** The newest phase run of the request's current phase. */
  currentPhaseRun(requestId: string): PhaseRunSummary | undefined {
    return this.ctx.db
      .prepare(
        `SELECT p.* FROM phase_runs p JOIN build_requests b ON b.id = p.build_request_id
         WHERE p.build_request_id = ? AND p.phase = b.current_phase ORDER BY p.seq DESC LIMIT 1`,
      )
      .get(requestId) as PhaseRunSummary | undefined;
  }

  setPhaseRunStatus(id: string, status: PhaseRunSummary['status']): void {
    const stamp = this.stamp;
    const done = ['succeeded', 'failed', 'canceled'].includes(status);
    this.ctx.db
      .prepare(
        `UPDATE phase_runs SET status = ?, started_at = COALESCE(started_at, CASE WHEN ? = 'running' THEN ? END),
           completed_at = CASE WHEN ? THEN ? ELSE completed_at END WHERE id = ?`,
      )
      .run(status, status, stamp, done ? 1 : 0, stamp, id);
  }

  addGate(requestId: string, raw: AddGateInput): GateSummary {
    const input = AddGateInputSchema.parse(raw);
    this.requireRequest(requestId);
    const status = input.status ?? 'open';
    const gate: GateSummary = {
      id: input.id ?? newId(),
      build_request_id: requestId,
      phase_run_id: input.phase_run_id ?? this.currentPhaseRun(requestId)?.id ?? null,
      kind: input.kind,
      title: input.title,
      status,
      decided_at: status === 'open' ? null : this.stamp,
      created_at: this.stamp,
    };
    this.ctx.db
      .prepare(
        `INSERT INTO gates (id, seq, build_request_id, phase_run_id, kind, title, status, decided_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(gate.id, nextSeq(this.ctx.db, 'gates'), requestId, gate.phase_run_id, gate.kind, gate.title, gate.status, gate.decided_at, gate.created_at);
    return gate;
  }

  updateGate(id: string, raw: UpdateGateInput): void {
    const input = UpdateGateInputSchema.parse(raw);
    const info = this.ctx.db
      .prepare('UPDATE gates SET status = ?, decided_at = ? WHERE id = ?')
      .run(input.status, input.status === 'open' ? null : this.stamp, id);
    if (!info.changes) throw new HttpError(404, 'not_found', 'unknown gate');
  }

  addPlanVersion(requestId: string, raw: AddPlanVersionInput): PlanVersionSummary {
    const input = AddPlanVersionInputSchema.parse(raw);
    this.requireRequest(requestId);
    const last = this.ctx.db.prepare('SELECT MAX(version_no) AS v FROM plan_versions WHERE build_request_id = ?').get(requestId) as { v: number | null };
    const plan: PlanVersionSummary = {
      id: input.id ?? newId(),
      build_request_id: requestId,
      version_no: input.version_no ?? (last.v ?? 0) + 1,
      status: input.status ?? 'draft',
      summary: input.summary ?? null,
      confidence_score: input.confidence_score ?? null,
      clarifying_questions: input.clarifying_questions ?? [],
      clarification_answers: input.clarification_answers ?? [],
      created_by_seat_id: input.created_by_seat_id ?? null,
      created_at: this.stamp,
    };
    this.ctx.db
      .prepare(
        `INSERT INTO plan_versions (id, build_request_id, version_no, status, summary, confidence_score, clarifying_questions,
           clarification_answers, created_by_seat_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        plan.id,
        requestId,
        plan.version_no,
        plan.status,
        plan.summary,
        plan.confidence_score,
        JSON.stringify(plan.clarifying_questions),
        JSON.stringify(plan.clarification_answers),
        plan.created_by_seat_id,
        plan.created_at,
      );
    return plan;
  }

  addTask(requestId: string, raw: AddTaskInput): TaskSummary {
    const input = AddTaskInputSchema.parse(raw);
    this.requireRequest(requestId);
    const last = this.ctx.db.prepare('SELECT MAX(ordinal) AS o FROM tasks WHERE build_request_id = ?').get(requestId) as { o: number | null };
    const status = input.status ?? 'pending';
    const task: TaskSummary = {
      id: input.id ?? newId(),
      build_request_id: requestId,
      plan_version_id: input.plan_version_id ?? null,
      ordinal: input.ordinal ?? (last.o ?? 0) + 1,
      title: input.title,
      status,
      checkpoint_ref: input.checkpoint_ref ?? (status === 'completed' ? `checkpoint:${newId()}` : null),
      completed_at: status === 'completed' ? this.stamp : null,
      created_at: this.stamp,
    };
    this.ctx.db
      .prepare(
        `INSERT INTO tasks (id, build_request_id, plan_version_id, ordinal, title, status, checkpoint_ref, completed_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(task.id, requestId, task.plan_version_id, task.ordinal, task.title, task.status, task.checkpoint_ref, task.completed_at, task.created_at);
    return task;
  }

  task(id: string): TaskSummary | undefined {
    return this.ctx.db.prepare('SELECT * FROM tasks WHERE id = ?').get(id) as TaskSummary | undefined;
  }

  updateTask(id: string, raw: UpdateTaskInput): TaskSummary {
    const input = UpdateTaskInputSchema.parse(raw);
    const task = this.task(id);
    if (!task) throw new HttpError(404, 'not_found', 'unknown task');
    const status = input.status ?? task.status;
    const completed = status === 'completed';
    this.ctx.db
      .prepare('UPDATE tasks SET status = ?, title = ?, checkpoint_ref = ?, completed_at = ? WHERE id = ?')
      .run(
        status,
        input.title ?? task.title,
        input.checkpoint_ref !== undefined ? input.checkpoint_ref : completed ? (task.checkpoint_ref ?? `checkpoint:${newId()}`) : task.checkpoint_ref,
        completed ? (task.completed_at ?? this.stamp) : null,
        id,
      );
    return this.task(id)!;
  }

  addChangeset(requestId: string, raw: AddChangesetInput): ChangesetSummary {
    const input = AddChangesetInputSchema.parse(raw);
    this.requireRequest(requestId);
    const changeset: ChangesetSummary = {
      id: input.id ?? newId(),
      build_request_id: requestId,
      task_id: input.task_id ?? null,
      title: input.title,
      status: input.status ?? 'draft',
      branch: input.branch ?? null,
      pr_url: input.pr_url ?? null,
      additions: input.additions ?? 0,
      deletions: input.deletions ?? 0,
      created_at: this.stamp,
    };
    this.ctx.db
      .prepare(
        `INSERT INTO changesets (id, seq, build_request_id, task_id, title, status, branch, pr_url, additions, deletions, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        changeset.id,
        nextSeq(this.ctx.db, 'changesets'),
        requestId,
        changeset.task_id,
        changeset.title,
        changeset.status,
        changeset.branch,
        changeset.pr_url,
        changeset.additions,
        changeset.deletions,
        changeset.created_at,
      );
    return changeset;
  }

  private requireRequest(id: string): BuildRequestRow {
    const row = this.row(id);
    if (!row) throw new HttpError(404, 'not_found', 'unknown build request');
    return row;
  }
}
