import { z } from 'zod';
import {
  ClaimNextInputSchema,
  DirectClaimInputSchema,
  ExecutorRegistrationInputSchema,
  InstanceRefreshInputSchema,
  LeaseCompleteInputSchema,
  LeaseHeartbeatInputSchema,
} from '../../../shared/protocol/sechroom';
import { iso } from '../../context';
import { HttpError } from '../../http/reply';
import type { RouteDef } from '../../http/router';
import type { SechroomServices } from '../services';
import { authed, body, query } from './base';

/** Deregistration sends `{}`; any object is fine. */
const AnyObject = z.object({});
/** `waitMs` [v1]: hold the read until there is an offer (capped by `offerWaitMaxMs`). Other parameters are ignored. */
const OffersQuerySchema = z.object({ waitMs: z.coerce.number().int().min(0).max(600_000).optional() });
/** `lease-notices` [v1]: `waitMs` as above; `canceling`: comma-separated lease ids the executor already heard of. */
const NoticesQuerySchema = OffersQuerySchema.extend({ canceling: z.string().max(10_000).optional() });

/** The executor's calls (seed B4 E1–E10): registration, offers, claims, lease heartbeat and completion. */
export function executorRoutes(s: SechroomServices): RouteDef[] {
  const id = (p: Record<string, string>) => p.id!;
  return [
    authed(s, 'POST', '/me/executor-instances', (ctx, caller) => s.instances.toWire(s.instances.register(caller, body(ExecutorRegistrationInputSchema, ctx)))),
    authed(s, 'GET', '/me/executor-instances', (_ctx, caller) =>
      s.instances
        .list({ tenant_id: caller.tenantId, operator_id: caller.operator.id })
        .filter((r) => r.deregistered_at === null)
        .map((r) => s.instances.toWire(r)),
    ),
    authed(s, 'POST', '/me/executor-instances/:id/refresh', (ctx, caller) => {
      const row = s.instances.refresh(caller, id(ctx.params), body(InstanceRefreshInputSchema, ctx).ttlSeconds);
      return { id: row.id, ttlSeconds: row.ttl_seconds, expiresAt: iso(row.expires_at) };
    }),
    authed(s, 'DELETE', '/me/executor-instances/:id', (ctx, caller) => {
      body(AnyObject, ctx);
      return { id: s.instances.deregister(caller, id(ctx.params)).id, deregistered: true };
    }),
    authed(s, 'GET', '/me/executor-instances/:id/dispatch-offers', async (ctx, caller) => {
      const offers = s.dispatch.offers(caller, id(ctx.params));
      const waitMs = Math.min(query(OffersQuerySchema, ctx).waitMs ?? 0, s.config.offerWaitMaxMs);
      if (offers.length || waitMs <= 0 || s.instances.status(s.instances.owned(caller, id(ctx.params))) !== 'live') return offers;
      s.base.ctx.events.emit('sechroom.offers.held', { instance_id: id(ctx.params), wait_ms: waitMs });
      return s.offerWaiters.wait(id(ctx.params), waitMs, ctx.signal);
    }),
    authed(s, 'GET', '/me/executor-instances/:id/lease-notices', async (ctx, caller) => {
      if (!s.config.leaseNotices) throw new HttpError(404, 'not_found', `no route for ${ctx.path}`);
      const instance = s.instances.owned(caller, id(ctx.params));
      const q = query(NoticesQuerySchema, ctx);
      const canceling = (q.canceling ?? '').split(',').filter(Boolean);
      const now = s.leaseNotices.noticesFor(instance.id, canceling);
      const waitMs = Math.min(q.waitMs ?? 0, s.config.offerWaitMaxMs);
      if (now.length || waitMs <= 0) return { cancels: now };
      s.base.ctx.events.emit('sechroom.lease_notices.held', { instance_id: instance.id, wait_ms: waitMs });
      return { cancels: await s.leaseNotices.wait(instance.id, canceling, waitMs, ctx.signal) };
    }),
    authed(s, 'POST', '/me/executor-instances/:id/dispatch-offers/claim-next', (ctx, caller) =>
      s.dispatch.claimNext(caller, id(ctx.params), body(ClaimNextInputSchema, ctx).idempotencyKey),
    ),
    authed(s, 'POST', '/me/executor-task-claims', (ctx, caller) => {
      const input = body(DirectClaimInputSchema, ctx);
      return s.dispatch.claimDirect(caller, input.generationId, input.executorInstanceId);
    }),
    authed(s, 'POST', '/me/executor-task-leases/:id/heartbeat', (ctx, caller) => {
      const input = body(LeaseHeartbeatInputSchema, ctx);
      return s.leases.heartbeat(caller, id(ctx.params), input.claimToken, input.tokenVersion);
    }),
    authed(s, 'POST', '/me/executor-task-leases/:id/complete', (ctx, caller) => s.leases.complete(caller, id(ctx.params), body(LeaseCompleteInputSchema, ctx))),
  ];
}
