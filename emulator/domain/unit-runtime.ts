import type { CancelNotice, LeaseHeartbeatRequest, LeaseHeartbeatResponse, LeaseStatus, ResultRequest, StartResponse, UnitKind } from '../../shared/protocol';
import { nextSeq } from '../db/database';
import type { EmulatorContext } from '../context';
import { iso } from '../context';
import { newId } from '../crypto';
import { HttpError } from '../http/reply';
import type { RunnerRecord } from './runners';
import type { UnitRow, UnitStore } from './units';
import type { ForgeWorkHooks } from './work-hooks';

export interface ResultRecord {
  id: string;
  unit_id: string;
  runner_id: string;
  idempotency_key: string;
  status: string;
  summary: string;
  log_ref: string | null;
  runtime: string | null;
  usage: unknown;
  /** Arrived after the server had already ended or re-queued the unit. */
  late: boolean;
  received_at: string;
}

export interface LeaseHeartbeatRecord {
  seq: number;
  unit_id: string;
  runner_id: string;
  answered: LeaseStatus;
  body: unknown;
  at: string;
}

/** A claimed unit's life on the runner side: start, lease heartbeats, result, and lease expiry. */
export class UnitRuntime {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly units: UnitStore,
    private readonly forge: ForgeWorkHooks,
  ) {}

  start(runner: RunnerRecord, kind: UnitKind, id: string): StartResponse {
    const row = this.ownedRow(runner, kind, id);
    if (row.runner_id !== runner.id || (row.status !== 'claimed' && row.status !== 'running')) {
      throw new HttpError(409, 'not_startable', `unit is ${row.status}`);
    }
    const requestStatus = row.build_request_id ? this.forge.requestStatus(row.build_request_id) : undefined;
    if (row.status === 'claimed' && requestStatus && requestStatus !== 'open' && requestStatus !== 'in_progress') {
      // Nothing ran yet: give the unit back so it starts after a resume, not now.
      const back = requestStatus === 'canceled' || requestStatus === 'closed' ? 'expired' : 'queued';
      this.ctx.db
        .prepare('UPDATE units SET status = ?, runner_id = NULL, lease_expires_at = NULL, status_reason = ? WHERE id = ?')
        .run(back, `request_${requestStatus}`, id);
      this.ctx.events.emit('unit.start_refused', { unit_id: id, request_status: requestStatus });
      throw new HttpError(409, 'not_startable', `build request is ${requestStatus}`);
    }
    const now = this.ctx.now();
    const expiresAt = now + row.lease_heartbeat_ms * this.ctx.config.leaseTtlFactor;
    if (row.status === 'claimed') {
      this.ctx.db.prepare("UPDATE units SET status = 'running', started_at = ?, lease_expires_at = ? WHERE id = ?").run(now, expiresAt, id);
      this.ctx.events.emit('unit.started', { unit_id: id, kind, runner_id: runner.id, attempt: row.attempt });
      this.forge.onUnitStarted(this.units.row(id)!);
    }
    return { started: true, lease: { heartbeat_ms: row.lease_heartbeat_ms, expires_at: iso(expiresAt) } };
  }

  leaseHeartbeat(runner: RunnerRecord, kind: UnitKind, id: string, body: LeaseHeartbeatRequest): LeaseHeartbeatResponse {
    const row = this.ownedRow(runner, kind, id);
    const now = this.ctx.now();
    let answer: LeaseHeartbeatResponse;
    if (row.runner_id === runner.id && (row.status === 'claimed' || row.status === 'running')) {
      const expiresAt = now + row.lease_heartbeat_ms * this.ctx.config.leaseTtlFactor;
      this.ctx.db.prepare('UPDATE units SET lease_expires_at = ? WHERE id = ?').run(expiresAt, id);
      answer = { ...this.leaseVerdict(row), expires_at: iso(expiresAt) };
    } else {
      // The server no longer counts this runner as holding the unit: tell it to stop.
      answer = { status: 'cancel_requested', expires_at: iso(now), reason: row.status_reason ?? `unit_${row.status}` };
    }
    this.ctx.db
      .prepare('INSERT INTO lease_heartbeats (unit_id, runner_id, answered, body, at) VALUES (?, ?, ?, ?, ?)')
      .run(id, runner.id, answer.status, JSON.stringify(body), now);
    this.ctx.events.emit('unit.lease_heartbeat', { unit_id: id, runner_id: runner.id, answered: answer.status });
    return answer;
  }

  result(runner: RunnerRecord, kind: UnitKind, id: string, body: ResultRequest): { accepted: true } {
    const row = this.ownedRow(runner, kind, id);
    const key = body.idempotency_key ?? `${id}:${row.attempt}`;
    const recorded = this.ctx.db.prepare('SELECT idempotency_key FROM results WHERE unit_id = ?').get(id);
    // Exactly once per unit: the same key again, or a second attempt's result, is "already recorded".
    if (recorded) throw new HttpError(409, 'already_recorded', 'a result for this unit is already recorded');
    const holding = row.runner_id === runner.id && (row.status === 'claimed' || row.status === 'running');
    const reclaimable = row.status === 'queued';
    const now = this.ctx.now();
    this.ctx.db.transaction(() => {
      this.ctx.db
        .prepare(
          `INSERT INTO results (id, seq, unit_id, runner_id, idempotency_key, status, summary, log_ref, runtime, usage, late,
             received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          newId(),
          nextSeq(this.ctx.db, 'results'),
          id,
          runner.id,
          key,
          body.status,
          body.summary,
          body.log_ref ?? null,
          body.runtime ?? null,
          body.usage ? JSON.stringify(body.usage) : null,
          holding ? 0 : 1,
          now,
        );
      if (holding || reclaimable) {
        this.ctx.db
          .prepare('UPDATE units SET status = ?, finished_at = ?, lease_expires_at = NULL, runner_id = ? WHERE id = ?')
          .run(body.status, now, runner.id, id);
      }
    })();
    this.ctx.events.emit('unit.result', { unit_id: id, kind, runner_id: runner.id, status: body.status, late: !holding });
    this.forge.onUnitResult(this.units.row(id)!, body);
    this.ctx.notifyWork();
    return { accepted: true };
  }

  /** Ends or re-queues units whose lease ran out. Runs on a timer and before each request. */
  sweep(): number {
    const now = this.ctx.now();
    const expired = this.ctx.db.prepare("SELECT * FROM units WHERE status IN ('claimed', 'running') AND lease_expires_at <= ?").all(now) as UnitRow[];
    for (const row of expired) {
      let outcome: 'queued' | 'failed' | 'canceled';
      if (row.status === 'claimed') outcome = 'queued';
      else if (row.cancel_requested_at !== null || this.forge.requestStatus(row.build_request_id ?? '') === 'canceled') outcome = 'canceled';
      // A running turn may have had side effects in a conversation: fail it rather than run it twice.
      else if (row.kind === 'work_order' && row.attempt < row.max_attempts) outcome = 'queued';
      else outcome = 'failed';
      if (outcome === 'queued') {
        this.ctx.db
          .prepare("UPDATE units SET status = 'queued', runner_id = NULL, lease_expires_at = NULL, status_reason = 'lease_expired' WHERE id = ?")
          .run(row.id);
      } else {
        this.ctx.db
          .prepare('UPDATE units SET status = ?, finished_at = ?, lease_expires_at = NULL, status_reason = ? WHERE id = ?')
          .run(outcome, now, 'lease_expired', row.id);
      }
      this.ctx.events.emit('unit.lease_expired', { unit_id: row.id, was: row.status, outcome, runner_id: row.runner_id });
    }
    if (expired.length) this.ctx.notifyWork();
    return expired.length;
  }

  listResults(filter: { unit_id?: string; runner_id?: string } = {}): ResultRecord[] {
    const rows = this.ctx.db
      .prepare('SELECT * FROM results WHERE (@unit IS NULL OR unit_id = @unit) AND (@runner IS NULL OR runner_id = @runner) ORDER BY seq')
      .all({ unit: filter.unit_id ?? null, runner: filter.runner_id ?? null }) as Array<
      Omit<ResultRecord, 'late' | 'received_at' | 'usage'> & {
        late: number;
        received_at: number;
        usage: string | null;
      }
    >;
    return rows.map((r) => ({
      id: r.id,
      unit_id: r.unit_id,
      runner_id: r.runner_id,
      idempotency_key: r.idempotency_key,
      status: r.status,
      summary: r.summary,
      log_ref: r.log_ref,
      runtime: r.runtime,
      usage: r.usage ? JSON.parse(r.usage) : null,
      late: r.late === 1,
      received_at: iso(r.received_at),
    }));
  }

  listLeaseHeartbeats(filter: { unit_id?: string } = {}): LeaseHeartbeatRecord[] {
    const rows = this.ctx.db
      .prepare('SELECT * FROM lease_heartbeats WHERE (@unit IS NULL OR unit_id = @unit) ORDER BY seq')
      .all({ unit: filter.unit_id ?? null }) as Array<{
      seq: number;
      unit_id: string;
      runner_id: string;
      answered: LeaseStatus;
      body: string | null;
      at: number;
    }>;
    return rows.map((r) => ({ ...r, body: r.body ? JSON.parse(r.body) : null, at: iso(r.at) }));
  }

  /** [v1] The cancels a running unit of this runner waits for: what its next lease heartbeat would answer. */
  cancelsFor(runnerId: string): CancelNotice[] {
    const rows = this.ctx.db.prepare("SELECT * FROM units WHERE status = 'running' AND runner_id = ?").all(runnerId) as UnitRow[];
    const out: CancelNotice[] = [];
    for (const row of rows) {
      const verdict = this.leaseVerdict(row);
      if (verdict.status === 'cancel_requested') out.push({ unit_id: row.id, kind: row.kind, ...(verdict.reason ? { reason: verdict.reason } : {}) });
    }
    return out;
  }

  private leaseVerdict(row: UnitRow): { status: LeaseStatus; reason?: string } {
    if (row.cancel_requested_at !== null) return { status: 'cancel_requested', reason: row.status_reason ?? 'unit_canceled' };
    const requestStatus = row.build_request_id ? this.forge.requestStatus(row.build_request_id) : undefined;
    if (requestStatus === 'canceled' || requestStatus === 'closed') return { status: 'cancel_requested', reason: `request_${requestStatus}` };
    if (requestStatus === 'paused') return { status: 'pause_requested', reason: 'request_paused' };
    return { status: 'active' };
  }

  /** The unit if this runner ever held it; otherwise 404 (a runner learns nothing of other runners' work). */
  private ownedRow(runner: RunnerRecord, kind: UnitKind, id: string): UnitRow {
    const row = this.units.row(id);
    if (!row || row.kind !== kind || row.last_runner_id !== runner.id) throw new HttpError(404, 'not_found', 'unknown unit');
    return row;
  }
}
