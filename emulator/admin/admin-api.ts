import type {
  BuildRequestSummary,
  CapacityObservationSummary,
  ChangesetSummary,
  GateSummary,
  OperatorRole,
  PairingClaimResponse,
  PhaseRunSummary,
  PlanVersionSummary,
  RequestShowOutput,
  TaskSummary,
  TokenResponse,
  UnitKind,
} from '../../shared/protocol';
import { mergeConfig, type ConfigPatch, type EmulatorConfig } from '../config';
import { wipeDatabase } from '../db/database';
import { seedDemo, type DemoSeedSummary } from '../demo/demo-seed';
import type { Trickle, TrickleState } from '../demo/trickle';
import type { ConfirmationRecord } from '../domain/forge/confirmations';
import type {
  AddChangesetInput,
  AddGateInput,
  AddPhaseRunInput,
  AddPlanVersionInput,
  AddTaskInput,
  CreateBuildRequestInput,
  CreateProjectInput,
  UpdateBuildRequestInput,
  UpdateGateInput,
  UpdateTaskInput,
} from '../domain/forge/forge-inputs';
import type { ProjectRecord } from '../domain/forge/forge-store';
import type { OperatorRecord, TenantRecord } from '../domain/identity';
import type { McpCallRecord } from '../domain/mcp';
import type { DeviceCodeRecord } from '../domain/oauth';
import type { PairingRecord } from '../domain/pairing';
import type { RunnerRecord } from '../domain/runners';
import type { EnqueueUnitInput } from '../domain/unit-input';
import type { LeaseHeartbeatRecord, ResultRecord } from '../domain/unit-runtime';
import type { UnitFilter, UnitRecord } from '../domain/units';
import type { EmulatorEvent } from '../events';
import { HttpError } from '../http/reply';
import type { Fault, FaultInput } from '../http/faults';
import type { Services } from '../services';

export interface EmulatorStateSummary {
  url: string;
  tenants: number;
  operators: number;
  runners: number;
  pairings_pending: number;
  units: Record<string, number>;
  results: number;
  build_requests: number;
  held_claims: number;
  confirmation_mode: boolean;
  trickle: TrickleState;
  faults: number;
}

/**
 * Typed helpers over the emulator's state, for in-process tests. The HTTP admin
 * API under `/_emulator/` maps one-to-one onto these methods.
 */
/** What another plane mounted on this emulator (the Sechroom Work Layer) does on a reset and a demo seed. */
export interface AdminHooks {
  beforeReset?: () => void;
  afterSeedDemo?: () => void;
}

export class EmulatorAdmin {
  constructor(
    private readonly s: Services,
    private readonly trickle: Trickle,
    private readonly hooks: AdminHooks = {},
  ) {}

  // ---- identity ----
  defaultTenantId(): string {
    return this.s.identity.defaultTenantId();
  }
  createTenant(input: { name: string; id?: string }): TenantRecord {
    return this.s.identity.createTenant(input.name, input.id);
  }
  listTenants(): TenantRecord[] {
    return this.s.identity.listTenants();
  }
  createOperator(input: { name: string; role: OperatorRole; tenant_id?: string; id?: string }): OperatorRecord {
    return this.s.identity.createOperator(input);
  }
  listOperators(): OperatorRecord[] {
    return this.s.identity.listOperators();
  }
  /** Access + refresh tokens for an operator without the browser step. */
  issueOperatorTokens(operatorId: string, opts: { client_id?: string; scope?: string } = {}): TokenResponse {
    return this.s.oauth.issueTokens(operatorId, opts.client_id, opts.scope ?? 'forge');
  }
  listOAuthDeviceCodes(): DeviceCodeRecord[] {
    return this.s.oauth.listDeviceCodes();
  }
  decideOAuthDeviceCode(userCode: string, operatorId: string, decision: 'approve' | 'deny' = 'approve'): DeviceCodeRecord {
    const operator = this.s.identity.getOperator(operatorId);
    if (!operator) throw new HttpError(404, 'not_found', 'unknown operator');
    return this.s.oauth.decide(userCode, operator, decision);
  }

  // ---- pairing and runners ----
  listPairings(): PairingRecord[] {
    return this.s.pairing.list();
  }
  approvePairing(userCode: string, opts: { operator_id?: string; tenant_id?: string } = {}): PairingRecord {
    const tenantId = opts.tenant_id ?? (opts.operator_id ? this.s.identity.getOperator(opts.operator_id)?.tenant_id : undefined);
    return this.s.pairing.decide(userCode, 'approve', { operatorId: opts.operator_id, tenantId });
  }
  /** What the "Add a runner" page does: an approved code for `--user-code` (the operator's tenant, else the default). */
  issuePairingCode(opts: { operator_id?: string; name?: string } = {}): PairingRecord {
    const operator = opts.operator_id ? this.s.identity.getOperator(opts.operator_id) : undefined;
    return this.s.pairing.issueCode({ id: operator?.id ?? 'admin', tenant_id: operator?.tenant_id ?? this.defaultTenantId() }, opts.name ?? null, null);
  }
  denyPairing(userCode: string): PairingRecord {
    return this.s.pairing.decide(userCode, 'deny');
  }
  /** A paired runner without the pairing dance; returns its credentials (the only time the secret is visible). */
  createRunner(input: { name?: string; tenant_id?: string; platform?: string; hostname?: string; runner_version?: string } = {}): PairingClaimResponse {
    const tenantId = input.tenant_id ?? this.defaultTenantId();
    const { runner, secret } = this.s.runners.create({ ...input, name: input.name ?? 'test-runner', tenant_id: tenantId });
    return { runner_id: runner.id, runner_secret: secret, tenant_id: tenantId, name: runner.name };
  }
  listRunners(): RunnerRecord[] {
    return this.s.runners.list();
  }
  revokeRunner(runnerId: string): void {
    this.s.runners.revoke(runnerId, 'admin');
  }

  // ---- work ----
  enqueue(kind: UnitKind, input: EnqueueUnitInput = {}): UnitRecord {
    return this.s.units.enqueue(kind, input);
  }
  enqueueTurnExecution(input: EnqueueUnitInput = {}): UnitRecord {
    return this.s.units.enqueue('turn_execution', input);
  }
  enqueueWorkOrder(input: EnqueueUnitInput = {}): UnitRecord {
    return this.s.units.enqueue('work_order', input);
  }
  listUnits(filter: UnitFilter = {}): UnitRecord[] {
    return this.s.units.list(filter);
  }
  getUnit(id: string): UnitRecord | undefined {
    return this.s.units.get(id);
  }
  cancelUnit(id: string): UnitRecord {
    return this.s.units.cancel(id);
  }
  listResults(filter: { unit_id?: string; runner_id?: string } = {}): ResultRecord[] {
    return this.s.runtime.listResults(filter);
  }
  /** Capacity observations recorded from heartbeats, newest first. */
  listHeartbeats(filter: { runner_id?: string; limit?: number } = {}): CapacityObservationSummary[] {
    return this.s.runners.observations(filter);
  }
  listLeaseHeartbeats(filter: { unit_id?: string } = {}): LeaseHeartbeatRecord[] {
    return this.s.runtime.listLeaseHeartbeats(filter);
  }
  listMcpCalls(filter: { unit_id?: string; tool?: string } = {}): McpCallRecord[] {
    return this.s.mcp.listCalls(filter);
  }
  listEvents(filter: { since?: number; type?: string; limit?: number } = {}): EmulatorEvent[] {
    return this.s.ctx.events.list(filter);
  }
  /** The first event of `type` (or matching the predicate) from now on, or since `opts.since`. */
  waitForEvent(match: string | ((e: EmulatorEvent) => boolean), opts: { timeoutMs?: number; since?: number } = {}): Promise<EmulatorEvent> {
    const predicate = typeof match === 'string' ? (e: EmulatorEvent) => e.type === match : match;
    return this.s.ctx.events.waitFor(predicate, opts);
  }
  /** Applies lease expiry now (use after advancing an injected clock). */
  sweep(): number {
    return this.s.runtime.sweep();
  }
  heldClaims(): number {
    return this.s.waiters.size;
  }

  // ---- forge ----
  createProject(input: CreateProjectInput): ProjectRecord {
    return this.s.forge.createProject(input);
  }
  listProjects(): ProjectRecord[] {
    return this.s.forge.listProjects();
  }
  createBuildRequest(input: CreateBuildRequestInput): BuildRequestSummary {
    return this.s.forge.createBuildRequest(input);
  }
  updateBuildRequest(id: string, patch: UpdateBuildRequestInput): BuildRequestSummary {
    return this.s.forge.updateBuildRequest(id, patch);
  }
  listBuildRequests(): BuildRequestSummary[] {
    return this.s.forge.list(undefined, 500);
  }
  showBuildRequest(id: string): RequestShowOutput {
    return this.s.forge.show(id);
  }
  addPhaseRun(requestId: string, input: AddPhaseRunInput): PhaseRunSummary {
    return this.s.forge.addPhaseRun(requestId, input);
  }
  addGate(requestId: string, input: AddGateInput): GateSummary {
    return this.s.forge.addGate(requestId, input);
  }
  addPlanVersion(requestId: string, input: AddPlanVersionInput): PlanVersionSummary {
    return this.s.forge.addPlanVersion(requestId, input);
  }
  addTask(requestId: string, input: AddTaskInput): TaskSummary {
    return this.s.forge.addTask(requestId, input);
  }
  addChangeset(requestId: string, input: AddChangesetInput): ChangesetSummary {
    return this.s.forge.addChangeset(requestId, input);
  }
  updateTask(id: string, patch: UpdateTaskInput): TaskSummary {
    return this.s.forge.updateTask(id, patch);
  }
  updateGate(id: string, patch: UpdateGateInput): void {
    this.s.forge.updateGate(id, patch);
  }

  // ---- confirmation handoff ----
  setConfirmationMode(enabled: boolean): void {
    this.s.confirmations.setEnabled(enabled);
  }
  confirmationMode(): boolean {
    return this.s.confirmations.enabled;
  }
  listConfirmations(): ConfirmationRecord[] {
    return this.s.confirmations.list();
  }
  /** Confirms or declines as `operatorId` (default: the first tenant_admin of the confirmation's tenant). */
  decideConfirmation(id: string, decision: 'confirm' | 'decline', operatorId?: string): ConfirmationRecord {
    const record = this.s.confirmations.get(id);
    if (!record) throw new HttpError(404, 'not_found', 'unknown confirmation');
    const operator = operatorId
      ? this.s.identity.getOperator(operatorId)
      : this.s.identity.listOperators(record.tenant_id).find((o) => o.role === 'tenant_admin');
    if (!operator) throw new HttpError(404, 'not_found', 'no tenant_admin operator to decide with');
    return this.s.confirmations.decide(id, operator, decision);
  }

  // ---- faults and configuration ----
  addFault(input: FaultInput): Fault {
    return this.s.faults.add(input);
  }
  listFaults(): Fault[] {
    return this.s.faults.list();
  }
  clearFaults(id?: string): number {
    return this.s.faults.remove(id);
  }
  config(): EmulatorConfig {
    return mergeConfig(this.s.ctx.config, undefined);
  }
  setConfig(patch: ConfigPatch): EmulatorConfig {
    const next = mergeConfig(this.s.ctx.config, patch);
    Object.assign(this.s.ctx.config, next);
    this.s.ctx.notifyWork();
    return this.config();
  }

  // ---- demo, trickle, reset ----
  seedDemo(): DemoSeedSummary {
    const summary = seedDemo(this.s);
    this.hooks.afterSeedDemo?.();
    return summary;
  }
  setTrickle(opts: boolean | { enabled: boolean; min_ms?: number; max_ms?: number }): TrickleState {
    return this.trickle.set(typeof opts === 'boolean' ? { enabled: opts } : opts);
  }
  trickleOnce(): UnitRecord {
    return this.trickle.once();
  }
  /** Wipes every table (and faults, rate limits, held claims), then optionally seeds the demo. */
  reset(opts: { seed?: 'demo' | 'none' } = {}): void {
    this.trickle.stop();
    this.hooks.beforeReset?.();
    this.s.waiters.releaseAll();
    wipeDatabase(this.s.ctx.db);
    this.s.faults.remove();
    this.s.limiter.clear();
    this.s.identity.ensureDefaultTenant();
    this.s.ctx.events.emit('emulator.reset', { seed: opts.seed ?? 'none' });
    if (opts.seed === 'demo') this.seedDemo();
  }

  state(): EmulatorStateSummary {
    const { db } = this.s.ctx;
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const units = Object.fromEntries(
      (db.prepare('SELECT status, COUNT(*) AS n FROM units GROUP BY status').all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n]),
    );
    return {
      url: this.s.ctx.baseUrl,
      tenants: count('SELECT COUNT(*) AS n FROM tenants'),
      operators: count('SELECT COUNT(*) AS n FROM operators'),
      runners: count('SELECT COUNT(*) AS n FROM runners WHERE revoked_at IS NULL'),
      pairings_pending: count("SELECT COUNT(*) AS n FROM pairings WHERE status = 'pending'"),
      units,
      results: count('SELECT COUNT(*) AS n FROM results'),
      build_requests: count('SELECT COUNT(*) AS n FROM build_requests'),
      held_claims: this.s.waiters.size,
      confirmation_mode: this.s.confirmations.enabled,
      trickle: this.trickle.current,
      faults: this.s.faults.list().length,
    };
  }
}
