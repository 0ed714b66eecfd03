import { z } from 'zod';
import {
  BriefLifecycleInputSchema,
  BriefStatusInputSchema,
  DecompositionListQuerySchema,
  ReturnForRevisionInputSchema,
  RunTelemetryInputSchema,
  SECHROOM_SCOPE,
  WorkBriefListQuerySchema,
  WorkTaskListQuerySchema,
} from '../../../shared/protocol/sechroom';
import {
  AppendTasksInputSchema,
  DecomposeFromPlanInputSchema,
  MarkNoResidueInputSchema,
  ProduceResidueInputSchema,
} from '../../../shared/protocol/sechroom-work-plans';
import { iso } from '../../context';
import { HttpError, json } from '../../http/reply';
import type { RouteDef } from '../../http/router';
import type { LifecycleAction } from '../domain/lifecycle';
import type { TaskRow } from '../domain/work-store';
import type { SechroomServices } from '../services';
import { SECHROOM_BASE, authed, body, query } from './base';

const AnyObject = z.object({});
const DEFAULT_PAGE_SIZE = 50;

const id = (p: Record<string, string>) => p.id!;

/** Cards, context packs, run telemetry, and the operator's brief and work-plan verbs (seed B4 E6/E7/E11, B13). */
export function workRoutes(s: SechroomServices): RouteDef[] {
  return [...discoveryRoutes(s), ...taskRoutes(s), ...decompositionRoutes(s), ...briefRoutes(s)];
}

/** OAuth metadata at both well-known URLs, and who the caller is. */
function discoveryRoutes(s: SechroomServices): RouteDef[] {
  const metadata = () => ({ ...s.base.oauth.metadata(), issuer: `${s.base.ctx.baseUrl}${SECHROOM_BASE}`, scopes_supported: [SECHROOM_SCOPE] });
  return [
    // Under the base URL (what a client that appends the well-known path to its base finds) and at the RFC 8414 path-inserted URL.
    { method: 'GET', pattern: `${SECHROOM_BASE}/.well-known/oauth-authorization-server`, handler: () => json(200, metadata()) },
    { method: 'GET', pattern: `/.well-known/oauth-authorization-server${SECHROOM_BASE}`, handler: () => json(200, metadata()) },
    authed(s, 'GET', '/me', (_ctx, caller) => ({
      operatorId: caller.operator.id,
      name: caller.operator.name,
      tenant: caller.tenantId,
      tenantName: caller.tenant.name,
      scope: caller.scope,
    })),
  ];
}

/** Task cards, context-pack packages and the task list. */
function taskRoutes(s: SechroomServices): RouteDef[] {
  return [
    authed(s, 'GET', '/tasks/:id/card', (ctx, caller) => {
      const t = s.work.requireTask(id(ctx.params), caller.tenantId);
      return {
        taskId: t.memory_id,
        title: t.title,
        task: { objective: t.objective, acceptance: t.acceptance, boundaries: t.boundaries, closeout: t.closeout },
        contextPack: t.pack_slug && t.pack_version ? { slug: t.pack_slug, version: t.pack_version } : null,
        decompositionId: t.decomposition_id,
        laneId: t.lane,
      };
    }),
    authed(s, 'GET', '/bundles/:slug/versions/:version/package', (ctx, caller) => {
      const { slug, version } = ctx.params as { slug: string; version: string };
      const components = s.work.bundle(caller.tenantId, slug, version);
      if (!components) throw new HttpError(404, 'not_found', `unknown context pack ${slug}@${version}`);
      return { slug, version, components };
    }),
    authed(s, 'GET', '/work-tasks', (ctx, caller) => {
      const q = query(WorkTaskListQuerySchema, ctx);
      const page = q.page ?? 1;
      const pageSize = q.pageSize ?? DEFAULT_PAGE_SIZE;
      const { items, count } = s.work.listTasks({
        tenant_id: caller.tenantId,
        lane: q.lane,
        status: q.status,
        decomposition_id: q.decompositionId,
        offset: (page - 1) * pageSize,
        limit: pageSize,
      });
      return { items: items.map((t) => taskWire(s, t)), count, page, pageSize };
    }),
    authed(s, 'POST', '/work-tasks/produce-residue', (ctx, caller) => s.plans.produceResidue(caller.tenantId, body(ProduceResidueInputSchema, ctx))),
    authed(s, 'POST', '/work-tasks/mark-no-residue', (ctx, caller) => s.plans.markNoResidue(caller.tenantId, body(MarkNoResidueInputSchema, ctx))),
  ];
}

/** `work-plan accept`: a Pending plan starts offering; a running one with appended (proposed) tasks has them ratified. */
function acceptPlan(s: SechroomServices, tenantId: string, planId: string) {
  const plan = s.work.requireDecomposition(planId, tenantId);
  if (plan.status === 'Accepted' && s.plans.ratify(planId) > 0) return s.lifecycle.decompositionWire(s.work.requireDecomposition(planId));
  const accepted = s.lifecycle.acceptPlan(tenantId, planId);
  return s.plans.ratify(planId) > 0 ? s.lifecycle.decompositionWire(s.work.requireDecomposition(planId)) : accepted;
}

/** Run telemetry and the work-plan (decomposition) verbs. */
function decompositionRoutes(s: SechroomServices): RouteDef[] {
  return [
    authed(s, 'POST', '/decompositions/:id/run/telemetry', (ctx, caller) =>
      s.telemetry.ingest(caller.tenantId, id(ctx.params), body(RunTelemetryInputSchema, ctx).events),
    ),
    authed(s, 'GET', '/decompositions/:id/run/telemetry', (ctx, caller) => s.telemetry.read(caller.tenantId, id(ctx.params))),
    authed(s, 'GET', '/decompositions', (ctx, caller) => {
      const q = query(DecompositionListQuerySchema, ctx);
      const page = q.page ?? 1;
      const pageSize = q.pageSize ?? DEFAULT_PAGE_SIZE;
      const { items, count } = s.work.listDecompositions({
        tenant_id: caller.tenantId,
        status: q.status,
        brief_id: q.briefId,
        offset: (page - 1) * pageSize,
        limit: pageSize,
      });
      return { items: items.map((d) => s.lifecycle.decompositionWire(d)), count, page, pageSize };
    }),
    authed(s, 'GET', '/decompositions/:id', (ctx, caller) => s.lifecycle.decompositionWire(s.work.requireDecomposition(id(ctx.params), caller.tenantId))),
    authed(s, 'POST', '/decompositions/:id/resume', (ctx, caller) => (body(AnyObject, ctx), s.lifecycle.resumePlan(caller.tenantId, id(ctx.params)))),
    authed(s, 'POST', '/decompositions/:id/accept', (ctx, caller) => (body(AnyObject, ctx), acceptPlan(s, caller.tenantId, id(ctx.params)))),
    authed(s, 'POST', '/decompositions/:id/append-tasks', (ctx, caller) =>
      s.plans.appendTasks(caller.tenantId, id(ctx.params), body(AppendTasksInputSchema, ctx)),
    ),
    authed(s, 'POST', '/decompositions/:id/return-for-revision', (ctx, caller) =>
      s.lifecycle.returnForRevision(caller.tenantId, id(ctx.params), body(ReturnForRevisionInputSchema, ctx).notes),
    ),
  ];
}

/** Work briefs: list, show, status and the lifecycle verbs. */
function briefRoutes(s: SechroomServices): RouteDef[] {
  const lifecycle = (action: LifecycleAction) =>
    authed(s, 'POST', `/work-briefs/:id/${action}`, (ctx, caller) =>
      s.lifecycle.act(caller.tenantId, id(ctx.params), action, body(BriefLifecycleInputSchema, ctx)),
    );
  return [
    authed(s, 'GET', '/work-briefs', (ctx, caller) => {
      const q = query(WorkBriefListQuerySchema, ctx);
      const page = q.page ?? 1;
      const pageSize = q.pageSize ?? DEFAULT_PAGE_SIZE;
      const { items, count } = s.work.pageBriefs({ tenant_id: caller.tenantId, status: q.status, offset: (page - 1) * pageSize, limit: pageSize });
      return { items: items.map((b) => s.lifecycle.briefWire(b)), count, page, pageSize };
    }),
    authed(s, 'GET', '/work-briefs/:id', (ctx, caller) => s.lifecycle.briefWire(s.work.requireBrief(id(ctx.params), caller.tenantId))),
    authed(s, 'POST', '/work-briefs/:id/status', (ctx, caller) => {
      const input = body(BriefStatusInputSchema, ctx);
      if (input.id !== undefined && input.id !== id(ctx.params)) throw new HttpError(400, 'invalid_request', 'body.id must match the brief in the path');
      return s.lifecycle.setStatus(caller.tenantId, id(ctx.params), input.to, input.source);
    }),
    authed(s, 'POST', '/work-briefs/:id/decompose', (ctx, caller) => {
      const input = body(z.object({ id: z.string().max(200).optional() }).strict(), ctx);
      if (input.id !== undefined && input.id !== id(ctx.params)) throw new HttpError(400, 'invalid_request', 'body.id must match the brief in the path');
      return s.plans.decompose(caller.tenantId, id(ctx.params));
    }),
    authed(s, 'POST', '/work-briefs/:id/decompose-from-plan', (ctx, caller) =>
      s.plans.decomposeFromPlan(caller.tenantId, id(ctx.params), body(DecomposeFromPlanInputSchema, ctx)),
    ),
    lifecycle('pause'),
    lifecycle('resume'),
    lifecycle('cancel'),
  ];
}

/** A task as the operator's list shows it. */
function taskWire(s: SechroomServices, t: TaskRow) {
  return {
    memoryId: t.memory_id,
    title: t.title,
    status: t.status,
    decompositionId: t.decomposition_id,
    laneId: t.lane,
    verdict: t.verdict,
    generationId: t.status === 'ready' || t.status === 'leased' ? t.generation_id : null,
    createdAt: iso(t.created_at),
    // [v1] for an operator's view: who holds the task now, and how it last ended.
    lease: leaseOf(s, t),
    lastCompletion: lastCompletionOf(s, t),
  };
}

function leaseOf(s: SechroomServices, t: TaskRow) {
  const lease = s.leases.activeFor([t.memory_id])[0];
  if (!lease) return null;
  const instance = s.instances.get(lease.instance_id);
  return {
    id: lease.id,
    executorInstanceId: lease.instance_id,
    instanceKey: instance?.instance_key ?? null,
    laneId: instance?.lane_id ?? null,
    expiresAt: iso(lease.expires_at),
    cancelRequested: lease.cancel_requested_at !== null,
  };
}

function lastCompletionOf(s: SechroomServices, t: TaskRow) {
  const last = s.leases.listCompletions({ memory_id: t.memory_id }).at(-1);
  return last ? { completionMemoryId: last.id, verdict: last.verdict, title: last.title, source: last.source, receivedAt: iso(last.received_at) } : null;
}
