import { z } from 'zod';
import {
  ClaimRequestSchema,
  HeartbeatRequestSchema,
  LeaseHeartbeatRequestSchema,
  ResultRequestSchema,
  type UnitKind,
} from '../../shared/protocol';
import type { ClaimedPayload } from '../domain/scheduler';
import { HttpError, empty, json, type Reply } from '../http/reply';
import type { RequestCtx, RouteDef } from '../http/router';
import type { Services } from '../services';
import { parseWith } from './parse';

/** Start takes no fields; any object is fine. */
const StartRequestSchema = z.object({});

const KIND_BY_SEGMENT = new Map<string, UnitKind>([
  ['work-orders', 'work_order'],
  ['turn-executions', 'turn_execution'],
]);

function unitKind(ctx: RequestCtx): UnitKind {
  const kind = KIND_BY_SEGMENT.get(ctx.params.kind ?? '');
  if (!kind) throw new HttpError(404, 'not_found', `no route for ${ctx.path}`);
  return kind;
}

/** Protocol §2–4: heartbeat, claim (with long-poll), start, lease heartbeat, result. */
export function runnerRoutes(s: Services): RouteDef[] {
  const auth = (ctx: RequestCtx) => s.runners.authenticate(ctx.req.headers.authorization);
  const claimed = (payload: ClaimedPayload | null): Reply => {
    if (payload) return json(200, { [payload.kind]: payload.unit });
    return s.ctx.config.emptyClaim === '204' ? empty(204) : json(200, {});
  };
  return [
    {
      method: 'POST',
      pattern: '/api/runner/heartbeat',
      handler: (ctx) => json(200, s.runners.heartbeat(auth(ctx), parseWith(HeartbeatRequestSchema, ctx.body))),
    },
    {
      method: 'POST',
      pattern: '/api/runner/work-orders/claim',
      handler: async (ctx) => {
        const runner = auth(ctx);
        const body = parseWith(ClaimRequestSchema, ctx.body);
        const interactiveOnly = body.interactive_only === true;
        const now = s.scheduler.tryClaim(runner.id, interactiveOnly);
        const waitMs = Math.min(body.wait_ms ?? 0, s.ctx.config.longPollMaxMs);
        if (now || waitMs <= 0) return claimed(now);
        s.ctx.events.emit('claim.held', { runner_id: runner.id, interactive_only: interactiveOnly, wait_ms: waitMs });
        const payload = await s.waiters.wait(runner.id, interactiveOnly, waitMs, ctx.signal);
        if (!payload && ctx.signal.aborted) s.ctx.events.emit('claim.abandoned', { runner_id: runner.id });
        return claimed(payload);
      },
    },
    {
      method: 'POST',
      pattern: '/api/runner/:kind/:id/start',
      handler: (ctx) => {
        const runner = auth(ctx);
        parseWith(StartRequestSchema, ctx.body);
        return json(200, s.runtime.start(runner, unitKind(ctx), ctx.params.id!));
      },
    },
    {
      method: 'POST',
      pattern: '/api/runner/:kind/:id/heartbeat',
      handler: (ctx) => {
        const runner = auth(ctx);
        const kind = unitKind(ctx);
        return json(200, s.runtime.leaseHeartbeat(runner, kind, ctx.params.id!, parseWith(LeaseHeartbeatRequestSchema, ctx.body)));
      },
    },
    {
      method: 'POST',
      pattern: '/api/runner/:kind/:id/result',
      handler: (ctx) => {
        const runner = auth(ctx);
        const kind = unitKind(ctx);
        return json(200, s.runtime.result(runner, kind, ctx.params.id!, parseWith(ResultRequestSchema, ctx.body)));
      },
    },
  ];
}
