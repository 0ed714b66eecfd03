import type { BriefStatus, DecompositionStatus, Verdict } from '../../../shared/protocol/sechroom';
import type { EmulatorContext } from '../../context';
import { nextSeq, parseJson } from '../../db/database';
import { HttpError } from '../../http/reply';
import { newSechroomId } from '../ids';

export interface BriefRow {
  id: string;
  seq: number;
  tenant_id: string;
  title: string;
  status: BriefStatus;
  workspace_id: string;
  reason_code: string | null;
  reason: string | null;
  source: string | null;
  created_at: number;
  updated_at: number;
}

export interface DecompositionRow {
  id: string;
  seq: number;
  tenant_id: string;
  brief_id: string;
  title: string;
  status: DecompositionStatus;
  revision_of: string | null;
  revision_notes: string | null;
  created_at: number;
  updated_at: number;
}

/** `proposed`: appended to a running plan, not offered until the plan is accepted again (ratified). */
export type TaskStatus = 'proposed' | 'ready' | 'leased' | 'completed' | 'canceled';

export interface TaskRow {
  memory_id: string;
  seq: number;
  tenant_id: string;
  decomposition_id: string;
  title: string;
  objective: string;
  acceptance: string;
  boundaries: string;
  closeout: string;
  lane: string | null;
  capability_keys: string;
  tags: string;
  pack_slug: string | null;
  pack_version: string | null;
  status: TaskStatus;
  generation_id: string | null;
  generation_no: number;
  offered_at: number | null;
  verdict: Verdict | null;
  status_reason: string | null;
  created_at: number;
  updated_at: number;
}

export interface BundleComponent {
  title?: string | null | undefined;
  body: string;
}

export interface CreateTaskInput {
  tenant_id: string;
  decomposition_id: string;
  title: string;
  objective?: string | undefined;
  acceptance?: string | undefined;
  boundaries?: string | undefined;
  closeout?: string | undefined;
  lane?: string | null | undefined;
  capability_keys?: string[] | undefined;
  tags?: string[] | undefined;
  context_pack?: { slug: string; version: string } | null;
}

/** Briefs, work plans (decompositions), tasks with their generations, and context-pack bundles. */
export class WorkStore {
  constructor(private readonly ctx: EmulatorContext) {}

  // ---- briefs ----
  createBrief(input: { tenant_id: string; title: string; status?: BriefStatus | undefined }): BriefRow {
    const now = this.ctx.now();
    const id = newSechroomId('mem');
    this.ctx.db
      .prepare(
        `INSERT INTO sr_briefs (id, seq, tenant_id, title, status, workspace_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        nextSeq(this.ctx.db, 'sr_briefs'),
        input.tenant_id,
        input.title,
        input.status ?? 'ready_for_decomposition',
        workspaceFor(input.tenant_id),
        now,
        now,
      );
    this.ctx.events.emit('sechroom.brief.created', { brief_id: id, tenant_id: input.tenant_id });
    return this.brief(id)!;
  }

  brief(id: string, tenantId?: string): BriefRow | undefined {
    const row = this.ctx.db.prepare('SELECT * FROM sr_briefs WHERE id = ?').get(id) as BriefRow | undefined;
    return row && (!tenantId || row.tenant_id === tenantId) ? row : undefined;
  }

  requireBrief(id: string, tenantId?: string): BriefRow {
    const row = this.brief(id, tenantId);
    if (!row) throw new HttpError(404, 'not_found', 'unknown work brief');
    return row;
  }

  listBriefs(tenantId?: string): BriefRow[] {
    return this.pageBriefs({ tenant_id: tenantId }).items;
  }

  pageBriefs(filter: { tenant_id?: string | undefined; status?: string | undefined; offset?: number | undefined; limit?: number | undefined }): {
    items: BriefRow[];
    count: number;
  } {
    const where = '(? IS NULL OR tenant_id = ?) AND (? IS NULL OR status = ?)';
    const args = [filter.tenant_id ?? null, filter.tenant_id ?? null, filter.status ?? null, filter.status ?? null];
    const count = (this.ctx.db.prepare(`SELECT COUNT(*) AS n FROM sr_briefs WHERE ${where}`).get(...args) as { n: number }).n;
    const items = this.ctx.db
      .prepare(`SELECT * FROM sr_briefs WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...args, filter.limit ?? 1000, filter.offset ?? 0) as BriefRow[];
    return { items, count };
  }

  setBriefStatus(
    id: string,
    status: BriefStatus,
    why: { reason_code?: string | null | undefined; reason?: string | null | undefined; source?: string | null | undefined },
  ): void {
    this.ctx.db
      .prepare('UPDATE sr_briefs SET status = ?, reason_code = ?, reason = ?, source = ?, updated_at = ? WHERE id = ?')
      .run(status, why.reason_code ?? null, why.reason ?? null, why.source ?? null, this.ctx.now(), id);
  }

  /** The tenant's catch-all brief and plan for tasks created without a decomposition. */
  defaultDecomposition(tenantId: string): DecompositionRow {
    const found = this.ctx.db
      .prepare(
        "SELECT d.* FROM sr_decompositions d JOIN sr_briefs b ON b.id = d.brief_id WHERE d.tenant_id = ? AND b.title = ? AND d.title = ? AND d.status = 'Accepted' ORDER BY d.seq LIMIT 1",
      )
      .get(tenantId, DEFAULT_BRIEF_TITLE, DEFAULT_PLAN_TITLE) as DecompositionRow | undefined;
    if (found) return found;
    const brief = this.createBrief({ tenant_id: tenantId, title: DEFAULT_BRIEF_TITLE });
    return this.createDecomposition({ tenant_id: tenantId, brief_id: brief.id, title: DEFAULT_PLAN_TITLE, status: 'Accepted' });
  }

  // ---- decompositions ----
  createDecomposition(input: {
    tenant_id: string;
    brief_id: string;
    title: string;
    status?: DecompositionStatus | undefined;
    revision_of?: string | undefined;
    revision_notes?: string | undefined;
  }): DecompositionRow {
    this.requireBrief(input.brief_id, input.tenant_id);
    const now = this.ctx.now();
    const id = newSechroomId('wlp');
    this.ctx.db
      .prepare(
        `INSERT INTO sr_decompositions (id, seq, tenant_id, brief_id, title, status, revision_of, revision_notes, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        nextSeq(this.ctx.db, 'sr_decompositions'),
        input.tenant_id,
        input.brief_id,
        input.title,
        input.status ?? 'Accepted',
        input.revision_of ?? null,
        input.revision_notes ?? null,
        now,
        now,
      );
    this.ctx.events.emit('sechroom.decomposition.created', { decomposition_id: id, brief_id: input.brief_id, status: input.status ?? 'Accepted' });
    return this.decomposition(id)!;
  }

  decomposition(id: string, tenantId?: string): DecompositionRow | undefined {
    const row = this.ctx.db.prepare('SELECT * FROM sr_decompositions WHERE id = ?').get(id) as DecompositionRow | undefined;
    return row && (!tenantId || row.tenant_id === tenantId) ? row : undefined;
  }

  requireDecomposition(id: string, tenantId?: string): DecompositionRow {
    const row = this.decomposition(id, tenantId);
    if (!row) throw new HttpError(404, 'not_found', 'unknown decomposition');
    return row;
  }

  listDecompositions(filter: {
    tenant_id?: string | undefined;
    status?: string | undefined;
    brief_id?: string | undefined;
    offset?: number | undefined;
    limit?: number | undefined;
  }): { items: DecompositionRow[]; count: number } {
    const where = `(? IS NULL OR tenant_id = ?) AND (? IS NULL OR status = ?) AND (? IS NULL OR brief_id = ?)`;
    const args = [
      filter.tenant_id ?? null,
      filter.tenant_id ?? null,
      filter.status ?? null,
      filter.status ?? null,
      filter.brief_id ?? null,
      filter.brief_id ?? null,
    ];
    const count = (this.ctx.db.prepare(`SELECT COUNT(*) AS n FROM sr_decompositions WHERE ${where}`).get(...args) as { n: number }).n;
    const items = this.ctx.db
      .prepare(`SELECT * FROM sr_decompositions WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...args, filter.limit ?? 500, filter.offset ?? 0) as DecompositionRow[];
    return { items, count };
  }

  setDecompositionStatus(id: string, status: DecompositionStatus): void {
    this.ctx.db.prepare('UPDATE sr_decompositions SET status = ?, updated_at = ? WHERE id = ?').run(status, this.ctx.now(), id);
    this.ctx.events.emit('sechroom.decomposition.status', { decomposition_id: id, status });
  }

  taskCount(decompositionId: string): number {
    return (this.ctx.db.prepare('SELECT COUNT(*) AS n FROM sr_tasks WHERE decomposition_id = ?').get(decompositionId) as { n: number }).n;
  }

  // ---- tasks and generations ----
  createTask(input: CreateTaskInput): TaskRow {
    const plan = this.requireDecomposition(input.decomposition_id, input.tenant_id);
    if (input.context_pack && !this.bundle(input.tenant_id, input.context_pack.slug, input.context_pack.version)) {
      throw new HttpError(404, 'not_found', `unknown context pack ${input.context_pack.slug}@${input.context_pack.version}`);
    }
    const now = this.ctx.now();
    const memoryId = newSechroomId('mem');
    this.ctx.db
      .prepare(
        `INSERT INTO sr_tasks (memory_id, seq, tenant_id, decomposition_id, title, objective, acceptance, boundaries, closeout, lane,
           capability_keys, tags, pack_slug, pack_version, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'ready', ?, ?)`,
      )
      .run(
        memoryId,
        nextSeq(this.ctx.db, 'sr_tasks'),
        input.tenant_id,
        plan.id,
        input.title,
        input.objective ?? '',
        input.acceptance ?? '',
        input.boundaries ?? '',
        input.closeout ?? '',
        input.lane ?? null,
        JSON.stringify(input.capability_keys ?? []),
        JSON.stringify(input.tags ?? []),
        input.context_pack?.slug ?? null,
        input.context_pack?.version ?? null,
        now,
        now,
      );
    this.newGeneration(memoryId);
    this.ctx.events.emit('sechroom.task.created', { memory_id: memoryId, decomposition_id: plan.id, lane: input.lane ?? null });
    return this.task(memoryId)!;
  }

  task(memoryId: string, tenantId?: string): TaskRow | undefined {
    const row = this.ctx.db.prepare('SELECT * FROM sr_tasks WHERE memory_id = ?').get(memoryId) as TaskRow | undefined;
    return row && (!tenantId || row.tenant_id === tenantId) ? row : undefined;
  }

  requireTask(memoryId: string, tenantId?: string): TaskRow {
    const row = this.task(memoryId, tenantId);
    if (!row) throw new HttpError(404, 'not_found', 'unknown task');
    return row;
  }

  listTasks(
    filter: {
      tenant_id?: string | undefined;
      decomposition_id?: string | undefined;
      status?: string | undefined;
      lane?: string | undefined;
      offset?: number | undefined;
      limit?: number | undefined;
    } = {},
  ): { items: TaskRow[]; count: number } {
    const where = `(? IS NULL OR tenant_id = ?) AND (? IS NULL OR decomposition_id = ?) AND (? IS NULL OR status = ?) AND (? IS NULL OR lane = ?)`;
    const args = [
      filter.tenant_id,
      filter.tenant_id,
      filter.decomposition_id,
      filter.decomposition_id,
      filter.status,
      filter.status,
      filter.lane,
      filter.lane,
    ].map((v) => v ?? null);
    const count = (this.ctx.db.prepare(`SELECT COUNT(*) AS n FROM sr_tasks WHERE ${where}`).get(...args) as { n: number }).n;
    const items = this.ctx.db
      .prepare(`SELECT * FROM sr_tasks WHERE ${where} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...args, filter.limit ?? 1000, filter.offset ?? 0) as TaskRow[];
    return { items, count };
  }

  /** Makes the task offerable under a fresh generation (so a fresh idempotency key). */
  newGeneration(memoryId: string): string {
    const task = this.requireTask(memoryId);
    const id = newSechroomId('gen');
    const now = this.ctx.now();
    const no = task.generation_no + 1;
    this.ctx.db.prepare('INSERT INTO sr_generations (id, memory_id, no, created_at) VALUES (?, ?, ?, ?)').run(id, memoryId, no, now);
    this.ctx.db
      .prepare(
        "UPDATE sr_tasks SET status = 'ready', generation_id = ?, generation_no = ?, offered_at = ?, verdict = NULL, status_reason = NULL, updated_at = ? WHERE memory_id = ?",
      )
      .run(id, no, now, now, memoryId);
    this.ctx.events.emit('sechroom.task.offered', { memory_id: memoryId, generation_id: id, generation: no });
    return id;
  }

  generation(id: string): { id: string; memory_id: string; no: number } | undefined {
    return this.ctx.db.prepare('SELECT id, memory_id, no FROM sr_generations WHERE id = ?').get(id) as
      { id: string; memory_id: string; no: number } | undefined;
  }

  setTaskStatus(memoryId: string, status: TaskStatus, extra: { verdict?: Verdict | null | undefined; reason?: string | null | undefined } = {}): void {
    this.ctx.db
      .prepare('UPDATE sr_tasks SET status = ?, verdict = COALESCE(?, verdict), status_reason = ?, updated_at = ? WHERE memory_id = ?')
      .run(status, extra.verdict ?? null, extra.reason ?? null, this.ctx.now(), memoryId);
  }

  capabilityKeys(task: TaskRow): string[] {
    return parseJson<string[]>(task.capability_keys, []);
  }

  tags(task: TaskRow): string[] {
    const extra = parseJson<string[]>(task.tags, []);
    return ['kind:task', `wlp-decomposition:${task.decomposition_id}`, ...(task.lane ? [`lane:${task.lane}`] : []), ...extra];
  }

  workspaceOf(task: TaskRow): string {
    const plan = this.decomposition(task.decomposition_id);
    const brief = plan ? this.brief(plan.brief_id) : undefined;
    return brief?.workspace_id ?? workspaceFor(task.tenant_id);
  }

  // ---- bundles (context packs) ----
  putBundle(tenantId: string, slug: string, version: string, components: BundleComponent[]): void {
    this.ctx.db
      .prepare(
        `INSERT INTO sr_bundles (tenant_id, slug, version, components, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(tenant_id, slug, version) DO UPDATE SET components = excluded.components`,
      )
      .run(tenantId, slug, version, JSON.stringify(components), this.ctx.now());
    this.ctx.events.emit('sechroom.bundle.published', { slug, version });
  }

  bundle(tenantId: string, slug: string, version: string): BundleComponent[] | undefined {
    const row = this.ctx.db.prepare('SELECT components FROM sr_bundles WHERE tenant_id = ? AND slug = ? AND version = ?').get(tenantId, slug, version) as
      { components: string } | undefined;
    return row ? parseJson<BundleComponent[]>(row.components, []) : undefined;
  }

  listBundles(): Array<{ tenant_id: string; slug: string; version: string; components: number }> {
    return (
      this.ctx.db.prepare('SELECT tenant_id, slug, version, components FROM sr_bundles ORDER BY created_at').all() as Array<{
        tenant_id: string;
        slug: string;
        version: string;
        components: string;
      }>
    ).map((r) => ({ ...r, components: parseJson<unknown[]>(r.components, []).length }));
  }
}

export const DEFAULT_BRIEF_TITLE = 'Ad-hoc tasks';
export const DEFAULT_PLAN_TITLE = 'Ad-hoc tasks';

/** One workspace per tenant (the seed only echoes `workspaceId`). */
export const workspaceFor = (tenantId: string): string => `wks_${tenantId.replace(/[^A-Za-z0-9]/g, '').slice(0, 12)}`;
