import {
  ClaimRequestSchema,
  type CancelNotice,
  HeartbeatRequestSchema,
  LeaseHeartbeatRequestSchema,
  ResultRequestSchema,
  StartRequestSchema,
  UNIT_ID_FIELD,
  type ClaimRequest,
  type HeartbeatResponse,
  type UnitKind,
} from '../../shared/protocol';
import type { RunnerRecord } from '../domain/runners';
import type { ClaimedPayload } from '../domain/scheduler';
import { HttpError, empty, json, type Reply } from '../http/reply';
import type { RequestCtx, RouteDef } from '../http/router';
import type { Services } from '../services';
import { parseWith } from './parse';

const KIND_BY_SEGMENT = new Map<string, UnitKind>([
  ['work-orders', 'work_order'],
  ['turn-executions', 'turn_execution'],
]);

function unitKind(ctx: RequestCtx): UnitKind {
  const kind = KIND_BY_SEGMENT.get(ctx.params.kind ?? '');
  if (!kind) throw new HttpError(404, 'not_found', `no route for ${ctx.path}`);
  return kind;
}

/** The seed's id field (`turn_execution_id` / `work_order_id`) is optional, but when sent it must be the path's id. */
function checkIdField(kind: UnitKind, id: string, body: { turn_execution_id?: string | undefined; work_order_id?: string | undefined }): void {
  const field = UNIT_ID_FIELD[kind];
  const other = field === 'turn_execution_id' ? 'work_order_id' : 'turn_execution_id';
  if (body[other] !== undefined) throw new HttpError(400, 'invalid_request', `${other} does not belong to a ${kind}`);
  if (body[field] !== undefined && body[field] !== id) throw new HttpError(400, 'invalid_request', `${field} does not match the unit in the path`);
}

/** Protocol §2–4: heartbeat, claim (with long-poll), start, lease heartbeat, result. */
export function runnerRoutes(s: Services): RouteDef[] {
  const auth = (ctx: RequestCtx) => s.runners.authenticate(ctx.req.headers.authorization);
  const claimed = (payload: ClaimedPayload | null, beat: HeartbeatResponse | null, cancels: readonly CancelNotice[] = []): Reply => {
    const extra = { ...(beat ? { heartbeat: beat } : {}), ...(cancels.length > 0 ? { cancels } : {}) };
    if (payload) return json(200, { [payload.kind]: payload.unit, ...extra });
    if (beat || cancels.length > 0) return json(200, extra);
    return s.ctx.config.emptyClaim === '204' ? empty(204) : json(200, {});
  };
  /** [v1] A long-poll claim may carry the heartbeat: recorded as one when it arrives (a server without it ignores the field). */
  const carriedBeat = (runner: RunnerRecord, body: ClaimRequest): HeartbeatResponse | null => {
    const { claimCarriesHeartbeat, longPollMaxMs } = s.ctx.config;
    if (!body.heartbeat || !claimCarriesHeartbeat || longPollMaxMs <= 0 || !body.wait_ms) return null;
    return s.runners.heartbeat(runner, body.heartbeat);
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
        const beat = carriedBeat(runner, body);
        const interactiveOnly = body.interactive_only === true;
        // [v1] a runner that says what it can run gets only that; a seed client says nothing.
        const runtimes = s.ctx.config.honourClaimRuntimes ? (body.runtimes ?? null) : null;
        const waitMs = Math.min(body.wait_ms ?? 0, s.ctx.config.longPollMaxMs);
        // [v1] A cancel waiting to be told answers at once; a notices-only read never takes a unit.
        const notices = body.notices === true || body.notices_only === true;
        const hold = { runtimes, notices, noticesOnly: body.notices_only === true, canceling: body.canceling ?? [] };
        const cancels = notices ? s.cancels.take(runner.id, hold.canceling) : [];
        const now = cancels.length > 0 || hold.noticesOnly ? null : s.scheduler.tryClaim(runner.id, interactiveOnly, runtimes);
        if (now || cancels.length > 0 || waitMs <= 0) return claimed(now, beat, cancels);
        s.ctx.events.emit('claim.held', { runner_id: runner.id, interactive_only: interactiveOnly, wait_ms: waitMs, notices_only: hold.noticesOnly });
        const answer = await s.waiters.wait(runner.id, interactiveOnly, waitMs, ctx.signal, hold);
        if (!answer.payload && ctx.signal.aborted) s.ctx.events.emit('claim.abandoned', { runner_id: runner.id });
        // Revoked while held: 401, as any request with that secret now gets.
        if (!answer.payload) auth(ctx);
        return claimed(answer.payload, beat, answer.cancels);
      },
    },
    // [v1] What the plane would hand this runner, by runtime; nothing claimed (`--dry-run`).
    { method: 'GET', pattern: '/api/runner/lanes', handler: (ctx) => json(200, { lanes: s.scheduler.lanes(auth(ctx)) }) },
    {
      method: 'POST',
      pattern: '/api/runner/:kind/:id/start',
      handler: (ctx) => {
        const runner = auth(ctx);
        const kind = unitKind(ctx);
        checkIdField(kind, ctx.params.id!, parseWith(StartRequestSchema, ctx.body));
        return json(200, s.runtime.start(runner, kind, ctx.params.id!));
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
        const body = parseWith(ResultRequestSchema, ctx.body);
        checkIdField(kind, ctx.params.id!, body);
        return json(200, s.runtime.result(runner, kind, ctx.params.id!, body));
      },
    },
  ];
}
