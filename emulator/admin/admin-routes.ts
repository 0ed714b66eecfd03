import { z } from 'zod';
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
} from '../domain/forge/forge-inputs';
import { EnqueueUnitInputSchema } from '../domain/unit-input';
import { FaultInputSchema } from '../http/faults';
import { HttpError, json } from '../http/reply';
import type { RequestCtx, RouteDef } from '../http/router';
import { parseWith } from '../routes/parse';
import type { EmulatorAdmin } from './admin-api';
import {
  ConfigPatchSchema,
  ConfirmationDecisionInputSchema,
  ConfirmationModeInputSchema,
  EventQuerySchema,
  HeartbeatQuerySchema,
  LeaseQuerySchema,
  McpQuerySchema,
  OAuthDecisionInputSchema,
  OperatorInputSchema,
  PairingDecisionInputSchema,
  ResetInputSchema,
  ResultQuerySchema,
  RunnerInputSchema,
  TenantInputSchema,
  TokenInputSchema,
  TrickleInputSchema,
  UnitQuerySchema,
} from './admin-schemas';

/** Routes without input still refuse a body with fields, so a typo is not silently ignored. */
const NoInputSchema = z.strictObject({});
const noInput = (ctx: RequestCtx) => parseWith(NoInputSchema, ctx.body);

const query = <T extends z.ZodType>(schema: T, ctx: RequestCtx): z.infer<T> => parseWith(schema, Object.fromEntries(ctx.query), 'query');

const A = '/_emulator';
const get = (pattern: string, handler: (ctx: RequestCtx) => unknown): RouteDef => ({
  method: 'GET',
  pattern: `${A}${pattern}`,
  handler: (ctx) => json(200, handler(ctx)),
});
const post = (pattern: string, handler: (ctx: RequestCtx) => unknown, status = 200, method: RouteDef['method'] = 'POST'): RouteDef => ({
  method,
  pattern: `${A}${pattern}`,
  handler: (ctx) => json(status, handler(ctx) ?? { ok: true }),
});
const id = (ctx: RequestCtx) => ctx.params.id!;

/** `/_emulator/*`: JSON, no auth, loopback only (checked by the server). Mirrors EmulatorAdmin. */
export function adminRoutes(admin: EmulatorAdmin, listRoutes: () => ReadonlyArray<{ method: string; pattern: string }>): RouteDef[] {
  return [
    get('', () => ({ routes: listRoutes() })),
    get('/state', () => admin.state()),
    post('/reset', (ctx) => admin.reset(parseWith(ResetInputSchema, ctx.body))),
    get('/config', () => admin.config()),
    post('/config', (ctx) => admin.setConfig(parseWith(ConfigPatchSchema, ctx.body)), 200, 'PATCH'),
    ...identityRoutes(admin),
    ...runnerRoutes(admin),
    ...unitRoutes(admin),
    ...forgeRoutes(admin),
    ...controlRoutes(admin),
  ];
}

/** Tenants, operators and their tokens, OAuth device codes. */
function identityRoutes(admin: EmulatorAdmin): RouteDef[] {
  return [
    get('/tenants', () => admin.listTenants()),
    post('/tenants', (ctx) => admin.createTenant(parseWith(TenantInputSchema, ctx.body)), 201),
    get('/operators', () => admin.listOperators()),
    post('/operators', (ctx) => admin.createOperator(parseWith(OperatorInputSchema, ctx.body)), 201),
    post('/operators/:id/tokens', (ctx) => admin.issueOperatorTokens(id(ctx), parseWith(TokenInputSchema, ctx.body)), 201),
    get('/oauth/device-codes', () => admin.listOAuthDeviceCodes()),
    post('/oauth/device-codes/decide', (ctx) => {
      const input = parseWith(OAuthDecisionInputSchema, ctx.body);
      return admin.decideOAuthDeviceCode(input.user_code, input.operator_id, input.decision);
    }),
  ];
}

/** Pairings and runners. */
function runnerRoutes(admin: EmulatorAdmin): RouteDef[] {
  return [
    get('/pairings', () => admin.listPairings()),
    post('/pairings/approve', (ctx) => {
      const input = parseWith(PairingDecisionInputSchema, ctx.body);
      return admin.approvePairing(input.user_code, input);
    }),
    post('/pairings/deny', (ctx) => admin.denyPairing(parseWith(PairingDecisionInputSchema, ctx.body).user_code)),
    get('/runners', () => admin.listRunners()),
    post('/runners', (ctx) => admin.createRunner(parseWith(RunnerInputSchema, ctx.body)), 201),
    post('/runners/:id/revoke', (ctx) => (noInput(ctx), admin.revokeRunner(id(ctx)))),
  ];
}

/** Units of work and what the runners reported about them. */
function unitRoutes(admin: EmulatorAdmin): RouteDef[] {
  const unit = (ctx: RequestCtx) => {
    const found = admin.getUnit(id(ctx));
    if (!found) throw new HttpError(404, 'not_found', 'unknown unit');
    return found;
  };
  return [
    post('/turn-executions', (ctx) => admin.enqueueTurnExecution(parseWith(EnqueueUnitInputSchema, ctx.body)), 201),
    post('/work-orders', (ctx) => admin.enqueueWorkOrder(parseWith(EnqueueUnitInputSchema, ctx.body)), 201),
    get('/units', (ctx) => admin.listUnits(query(UnitQuerySchema, ctx))),
    get('/units/:id', unit),
    post('/units/:id/cancel', (ctx) => (noInput(ctx), admin.cancelUnit(unit(ctx).id))),
    get('/results', (ctx) => admin.listResults(query(ResultQuerySchema, ctx))),
    get('/heartbeats', (ctx) => admin.listHeartbeats(query(HeartbeatQuerySchema, ctx))),
    get('/lease-heartbeats', (ctx) => admin.listLeaseHeartbeats(query(LeaseQuerySchema, ctx))),
    get('/mcp-calls', (ctx) => admin.listMcpCalls(query(McpQuerySchema, ctx))),
    get('/events', (ctx) => admin.listEvents(query(EventQuerySchema, ctx))),
    post('/sweep', (ctx) => (noInput(ctx), { expired: admin.sweep() })),
  ];
}

/** The forge: projects, build requests and their parts. */
function forgeRoutes(admin: EmulatorAdmin): RouteDef[] {
  return [
    get('/projects', () => admin.listProjects()),
    post('/projects', (ctx) => admin.createProject(parseWith(CreateProjectInputSchema, ctx.body)), 201),
    get('/build-requests', () => admin.listBuildRequests()),
    post('/build-requests', (ctx) => admin.createBuildRequest(parseWith(CreateBuildRequestInputSchema, ctx.body)), 201),
    get('/build-requests/:id', (ctx) => admin.showBuildRequest(id(ctx))),
    post('/build-requests/:id', (ctx) => admin.updateBuildRequest(id(ctx), parseWith(UpdateBuildRequestInputSchema, ctx.body)), 200, 'PATCH'),
    post('/build-requests/:id/phase-runs', (ctx) => admin.addPhaseRun(id(ctx), parseWith(AddPhaseRunInputSchema, ctx.body)), 201),
    post('/build-requests/:id/gates', (ctx) => admin.addGate(id(ctx), parseWith(AddGateInputSchema, ctx.body)), 201),
    post('/build-requests/:id/plan-versions', (ctx) => admin.addPlanVersion(id(ctx), parseWith(AddPlanVersionInputSchema, ctx.body)), 201),
    post('/build-requests/:id/tasks', (ctx) => admin.addTask(id(ctx), parseWith(AddTaskInputSchema, ctx.body)), 201),
    post('/build-requests/:id/changesets', (ctx) => admin.addChangeset(id(ctx), parseWith(AddChangesetInputSchema, ctx.body)), 201),
    post('/tasks/:id', (ctx) => admin.updateTask(id(ctx), parseWith(UpdateTaskInputSchema, ctx.body)), 200, 'PATCH'),
    post('/gates/:id', (ctx) => admin.updateGate(id(ctx), parseWith(UpdateGateInputSchema, ctx.body)), 200, 'PATCH'),
  ];
}

/** Confirmations, faults, trickle and the demo seed. */
function controlRoutes(admin: EmulatorAdmin): RouteDef[] {
  return [
    get('/confirmation-mode', () => ({ enabled: admin.confirmationMode() })),
    post('/confirmation-mode', (ctx) => {
      admin.setConfirmationMode(parseWith(ConfirmationModeInputSchema, ctx.body).enabled);
      return { enabled: admin.confirmationMode() };
    }),
    get('/confirmations', () => admin.listConfirmations()),
    post('/confirmations/:id/decide', (ctx) => {
      const input = parseWith(ConfirmationDecisionInputSchema, ctx.body);
      return admin.decideConfirmation(id(ctx), input.decision, input.operator_id);
    }),

    get('/faults', () => admin.listFaults()),
    post('/faults', (ctx) => admin.addFault(parseWith(FaultInputSchema, ctx.body)), 201),
    post('/faults', (ctx) => (noInput(ctx), { removed: admin.clearFaults() }), 200, 'DELETE'),
    post('/faults/:id', (ctx) => (noInput(ctx), { removed: admin.clearFaults(id(ctx)) }), 200, 'DELETE'),

    post('/trickle', (ctx) => admin.setTrickle(parseWith(TrickleInputSchema, ctx.body))),
    post('/trickle/once', (ctx) => (noInput(ctx), admin.trickleOnce()), 201),
    post('/seed/demo', (ctx) => (noInput(ctx), admin.seedDemo())),
  ];
}
