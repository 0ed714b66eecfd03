import { SECHROOM_SCOPE, type BriefStatus, type DecompositionStatus } from '../../../shared/protocol/sechroom';
import type { TokenResponse } from '../../../shared/protocol';
import { iso } from '../../context';
import type { OperatorRecord } from '../../domain/identity';
import type { EmulatorEvent } from '../../events';
import { HttpError } from '../../http/reply';
import { SechroomConfigPatchSchema, type SechroomConfig, type SechroomConfigPatch } from '../config';
import { seedSechroomDemo, type SechroomDemoSummary } from '../demo/demo-seed';
import type { SechroomTrickle, SechroomTrickleState } from '../demo/trickle';
import type { InstanceRow } from '../domain/instances';
import type { CompletionRow } from '../domain/leases';
import type { TaskRow } from '../domain/work-store';
import type { SechroomServices } from '../services';
import type { CreateTaskAdminInput } from './admin-schemas';

export const EXECUTOR_OPERATOR_NAME = 'Sechroom executor';

export interface SechroomStateSummary {
  instances: { live: number; lapsed: number; deregistered: number };
  tasks: Record<string, number>;
  leases: Record<string, number>;
  completions: number;
  telemetry_events: number;
  briefs: number;
  decompositions: number;
  trickle: SechroomTrickleState;
}

/** Typed helpers over the Work Layer state; `/_emulator/sechroom/…` maps onto these one-to-one. */
export class SechroomAdmin {
  constructor(
    private readonly s: SechroomServices,
    private readonly trickle: SechroomTrickle,
  ) {}

  private tenant(id?: string): string {
    const tenantId = id ?? this.s.base.identity.defaultTenantId();
    if (!this.s.base.identity.getTenant(tenantId)) throw new HttpError(404, 'not_found', 'unknown tenant_id');
    return tenantId;
  }

  /** The operator a minted `SECHROOM_TOKEN` acts as by default (created once per tenant). */
  executorOperator(tenantId?: string): OperatorRecord {
    const tenant = this.tenant(tenantId);
    const found = this.s.base.identity.listOperators(tenant).find((o) => o.name === EXECUTOR_OPERATOR_NAME);
    return found ?? this.s.base.identity.createOperator({ name: EXECUTOR_OPERATOR_NAME, role: 'member', tenant_id: tenant });
  }

  /** A bearer for `SECHROOM_TOKEN` (plus a refresh token, which the seed never uses with it) and the `tenant` header value. */
  mintToken(input: { operator_id?: string; ttl_ms?: number; client_id?: string } = {}): TokenResponse & { operator_id: string; tenant: string } {
    const operator = input.operator_id ? this.s.base.identity.getOperator(input.operator_id) : this.executorOperator();
    if (!operator) throw new HttpError(404, 'not_found', 'unknown operator');
    const tokens = this.s.base.oauth.issueTokens(operator.id, input.client_id ?? 'sechroom-admin', SECHROOM_SCOPE, undefined, input.ttl_ms);
    return { ...tokens, operator_id: operator.id, tenant: operator.tenant_id };
  }

  // ---- work ----
  createBrief(input: { title: string; status?: BriefStatus; tenant_id?: string }) {
    return this.s.lifecycle.briefWire(this.s.work.createBrief({ ...input, tenant_id: this.tenant(input.tenant_id) }));
  }
  listBriefs() {
    return this.s.work.listBriefs().map((b) => this.s.lifecycle.briefWire(b));
  }
  createDecomposition(input: { brief_id?: string; title?: string; status?: DecompositionStatus; tenant_id?: string }) {
    const tenantId = this.tenant(input.tenant_id);
    const briefId = input.brief_id ?? this.s.work.createBrief({ tenant_id: tenantId, title: input.title ?? 'Work brief' }).id;
    const plan = this.s.work.createDecomposition({ tenant_id: tenantId, brief_id: briefId, title: input.title ?? 'Work plan', status: input.status });
    return this.s.lifecycle.decompositionWire(plan);
  }
  listDecompositions() {
    return this.s.work.listDecompositions({}).items.map((d) => this.s.lifecycle.decompositionWire(d));
  }
  publishBundle(input: { slug: string; version: string; components: Array<{ title?: string | null; body: string }>; tenant_id?: string }) {
    this.s.work.putBundle(this.tenant(input.tenant_id), input.slug, input.version, input.components);
    return { slug: input.slug, version: input.version, components: input.components.length };
  }
  listBundles() {
    return this.s.work.listBundles();
  }

  /** A task, offered at once under its first generation (in the tenant's ad-hoc plan unless one is named). */
  createTask(input: CreateTaskAdminInput) {
    const plan = input.decomposition_id
      ? this.s.work.requireDecomposition(input.decomposition_id)
      : this.s.work.defaultDecomposition(this.tenant(input.tenant_id));
    if (input.tenant_id && input.tenant_id !== plan.tenant_id) throw new HttpError(400, 'invalid_request', 'decomposition_id belongs to another tenant');
    const pack = input.context_pack;
    if (pack?.components) this.s.work.putBundle(plan.tenant_id, pack.slug, pack.version, pack.components);
    const task = this.s.work.createTask({
      tenant_id: plan.tenant_id,
      decomposition_id: plan.id,
      title: input.title,
      objective: input.objective,
      acceptance: input.acceptance,
      boundaries: input.boundaries,
      closeout: input.closeout,
      lane: input.lane ?? null,
      capability_keys: input.capability_keys,
      tags: input.tags,
      context_pack: pack ? { slug: pack.slug, version: pack.version } : null,
    });
    if (plan.status === 'Completed') this.s.work.setDecompositionStatus(plan.id, 'Accepted');
    return this.taskRecord(task);
  }
  listTasks(filter: { status?: string; decomposition_id?: string; lane?: string } = {}) {
    return this.s.work.listTasks(filter).items.map((t) => this.taskRecord(t));
  }
  getTask(memoryId: string) {
    return this.taskRecord(this.s.work.requireTask(memoryId));
  }

  // ---- executor side ----
  listInstances() {
    return this.s.instances.list().map((r) => this.instanceRecord(r));
  }
  /** Lapses an instance's advertisement now (as if its TTL ran out). */
  lapseInstance(id: string) {
    return this.instanceRecord(this.s.instances.lapse(id));
  }
  /** Open offers, or the offers one instance sees now (with its stagger). */
  listOffers(filter: { instance_id?: string } = {}) {
    if (!filter.instance_id) return this.s.dispatch.openOffers();
    const instance = this.s.instances.get(filter.instance_id);
    if (!instance) throw new HttpError(404, 'not_found', 'unknown instance');
    return this.s.dispatch.offersFor(instance);
  }
  openOffers() {
    return this.s.dispatch.openOffers();
  }
  listLeases(filter: { status?: string; instance_id?: string; memory_id?: string } = {}) {
    return this.s.leases.list(filter).map((l) => this.s.leases.toRecord(l));
  }
  listCompletions(filter: { memory_id?: string } = {}) {
    return this.s.leases.listCompletions(filter).map((c) => this.completionRecord(c));
  }
  listTelemetry(filter: { decomposition_id?: string } = {}) {
    return this.s.telemetry.list(filter);
  }
  expireLease(id: string) {
    const lease = this.s.leases.get(id);
    if (!lease) throw new HttpError(404, 'not_found', 'unknown lease');
    const ended = this.s.leases.expire(lease, 'admin');
    const task = this.s.work.task(ended.memory_id);
    return { ...this.s.leases.toRecord(ended), task: task ? this.taskRecord(task) : null };
  }
  cancelLease(id: string, reason = 'operator_requested') {
    return this.s.leases.toRecord(this.s.leases.requestCancel(id, reason));
  }
  /** Applies lease expiry now (after advancing an injected clock). */
  sweep(): number {
    return this.s.leases.sweep();
  }
  waitForEvent(match: string | ((e: EmulatorEvent) => boolean), opts: { timeoutMs?: number; since?: number } = {}): Promise<EmulatorEvent> {
    const predicate = typeof match === 'string' ? (e: EmulatorEvent) => e.type === match : match;
    return this.s.base.ctx.events.waitFor(predicate, opts);
  }

  // ---- config, demo ----
  config(): SechroomConfig {
    return { ...this.s.config };
  }
  setConfig(patch: SechroomConfigPatch): SechroomConfig {
    Object.assign(this.s.config, SechroomConfigPatchSchema.parse(patch));
    return this.config();
  }
  seedDemo(): SechroomDemoSummary {
    return seedSechroomDemo(this);
  }
  setTrickle(opts: boolean | { enabled: boolean; min_ms?: number; max_ms?: number }): SechroomTrickleState {
    return this.trickle.set(typeof opts === 'boolean' ? { enabled: opts } : opts);
  }
  trickleOnce() {
    return this.trickle.once();
  }
  stopTrickle(): void {
    this.trickle.stop();
  }

  state(): SechroomStateSummary {
    const db = this.s.base.ctx.db;
    const group = (table: string) =>
      Object.fromEntries(
        (db.prepare(`SELECT status, COUNT(*) AS n FROM ${table} GROUP BY status`).all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n]),
      );
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    const instances = { live: 0, lapsed: 0, deregistered: 0 };
    for (const row of this.s.instances.list()) instances[this.s.instances.status(row)] += 1;
    return {
      instances,
      tasks: group('sr_tasks'),
      leases: group('sr_leases'),
      completions: count('sr_completions'),
      telemetry_events: count('sr_telemetry'),
      briefs: count('sr_briefs'),
      decompositions: count('sr_decompositions'),
      trickle: this.trickle.current,
    };
  }

  // ---- records ----
  taskRecord(t: TaskRow) {
    const plan = this.s.work.decomposition(t.decomposition_id);
    return {
      memoryId: t.memory_id,
      decompositionId: t.decomposition_id,
      briefId: plan?.brief_id ?? null,
      tenantId: t.tenant_id,
      title: t.title,
      task: { objective: t.objective, acceptance: t.acceptance, boundaries: t.boundaries, closeout: t.closeout },
      lane: t.lane,
      capabilityKeys: this.s.work.capabilityKeys(t),
      tags: this.s.work.tags(t),
      contextPack: t.pack_slug && t.pack_version ? { slug: t.pack_slug, version: t.pack_version } : null,
      status: t.status,
      verdict: t.verdict,
      statusReason: t.status_reason,
      generationId: t.generation_id,
      generation: t.generation_no,
      createdAt: iso(t.created_at),
      updatedAt: iso(t.updated_at),
    };
  }

  instanceRecord(r: InstanceRow) {
    return {
      ...this.s.instances.toWire(r),
      tenantId: r.tenant_id,
      operatorId: r.operator_id,
      surface: r.surface,
      deliverySubscriptionId: r.delivery_subscription_id,
      toolSetRef: r.tool_set_ref,
      lastClaimAt: r.last_claim_at === null ? null : iso(r.last_claim_at),
      refreshedAt: iso(r.refreshed_at),
      deregisteredAt: r.deregistered_at === null ? null : iso(r.deregistered_at),
    };
  }

  completionRecord(c: CompletionRow) {
    const lease = this.s.leases.get(c.lease_id);
    return {
      completionMemoryId: c.id,
      leaseId: c.lease_id,
      memoryId: c.memory_id,
      instanceId: c.instance_id,
      verdict: c.verdict,
      text: c.text,
      source: c.source,
      title: c.title,
      receivedAt: iso(c.received_at),
      lease: lease ? this.s.leases.toRecord(lease) : null,
    };
  }
}
