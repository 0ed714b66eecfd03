import type { UnitKind } from '../../shared/protocol';
import { nextSeq, parseJson } from '../db/database';
import type { EmulatorContext } from '../context';
import { iso } from '../context';
import { newId } from '../crypto';
import { HttpError } from '../http/reply';
import type { EnqueueUnitInput } from './unit-input';
import { EnqueueUnitInputSchema } from './unit-input';

export type UnitStatus = 'queued' | 'claimed' | 'running' | 'succeeded' | 'failed' | 'canceled' | 'expired';

export interface UnitRow {
  id: string;
  seq: number;
  kind: UnitKind;
  tenant_id: string;
  status: UnitStatus;
  runner_id: string | null;
  last_runner_id: string | null;
  target_runner_id: string | null;
  build_request_id: string | null;
  phase_run_id: string | null;
  task_id: string | null;
  brain: string | null;
  prompt: string;
  fields: string;
  context_packet: string | null;
  packet_mode: 'auto' | 'explicit' | 'none';
  timeout_ms: number;
  lease_heartbeat_ms: number;
  attempt: number;
  max_attempts: number;
  lease_expires_at: number | null;
  claimed_at: number | null;
  started_at: number | null;
  finished_at: number | null;
  cancel_requested_at: number | null;
  status_reason: string | null;
  created_at: number;
}

/** Protocol fields kept as JSON because the scheduler never filters on them. */
export interface UnitFields {
  seat?: { id: string; name?: string } | null;
  charter_ref?: { seat_id?: string } | null;
  user_id?: string | null;
  session_id?: string | null;
  aicos?: { session_id?: string } | null;
  mcp_url?: string;
  extra?: Record<string, unknown>;
}

export interface UnitRecord extends UnitFields {
  id: string;
  kind: UnitKind;
  status: UnitStatus;
  tenant_id: string;
  runner_id: string | null;
  last_runner_id: string | null;
  target_runner_id: string | null;
  build_request_id: string | null;
  phase_run_id: string | null;
  task_id: string | null;
  brain: string | null;
  prompt: string;
  context_packet: unknown;
  packet_mode: 'auto' | 'explicit' | 'none';
  timeout_ms: number;
  lease_heartbeat_ms: number;
  attempt: number;
  max_attempts: number;
  lease_expires_at: string | null;
  claimed_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  cancel_requested_at: string | null;
  status_reason: string | null;
  created_at: string;
}

const ms = (value: number | null): string | null => (value === null ? null : iso(value));

export function toUnitRecord(row: UnitRow): UnitRecord {
  const fields = parseJson<UnitFields>(row.fields, {});
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    tenant_id: row.tenant_id,
    runner_id: row.runner_id,
    last_runner_id: row.last_runner_id,
    target_runner_id: row.target_runner_id,
    build_request_id: row.build_request_id,
    phase_run_id: row.phase_run_id,
    task_id: row.task_id,
    brain: row.brain,
    prompt: row.prompt,
    ...fields,
    context_packet: row.packet_mode === 'explicit' ? parseJson<unknown>(row.context_packet, null) : null,
    packet_mode: row.packet_mode,
    timeout_ms: row.timeout_ms,
    lease_heartbeat_ms: row.lease_heartbeat_ms,
    attempt: row.attempt,
    max_attempts: row.max_attempts,
    lease_expires_at: ms(row.lease_expires_at),
    claimed_at: ms(row.claimed_at),
    started_at: ms(row.started_at),
    finished_at: ms(row.finished_at),
    cancel_requested_at: ms(row.cancel_requested_at),
    status_reason: row.status_reason,
    created_at: iso(row.created_at),
  };
}

export interface UnitFilter {
  status?: UnitStatus;
  kind?: UnitKind;
  build_request_id?: string;
  runner_id?: string;
}

/** Storage of turn executions and work orders. */
export class UnitStore {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly defaultTenantId: () => string,
  ) {}

  enqueue(kind: UnitKind, raw: EnqueueUnitInput): UnitRecord {
    const input = EnqueueUnitInputSchema.parse(raw);
    const id = input.id ?? newId();
    if (this.row(id)) throw new HttpError(409, 'duplicate_id', 'a unit with this id exists');
    const hasPacket = Object.prototype.hasOwnProperty.call(input, 'context_packet') && input.context_packet !== undefined;
    const packetMode = hasPacket ? (input.context_packet === null ? 'none' : 'explicit') : 'auto';
    const fields: UnitFields = {};
    for (const key of ['seat', 'charter_ref', 'user_id', 'session_id', 'aicos', 'mcp_url', 'extra'] as const) {
      if (input[key] !== undefined) (fields as Record<string, unknown>)[key] = input[key];
    }
    const { config } = this.ctx;
    this.ctx.db
      .prepare(
        `INSERT INTO units (id, seq, kind, tenant_id, status, target_runner_id, build_request_id, phase_run_id, task_id,
           brain, prompt, fields, context_packet, packet_mode, timeout_ms, lease_heartbeat_ms, max_attempts, created_at)
         VALUES (?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        nextSeq(this.ctx.db, 'units'),
        kind,
        input.tenant_id ?? this.defaultTenantId(),
        input.target_runner_id ?? null,
        input.build_request_id ?? null,
        input.phase_run_id ?? null,
        input.task_id ?? null,
        input.brain ?? 'claude',
        input.prompt ?? defaultPrompt(kind),
        JSON.stringify(fields),
        packetMode === 'explicit' ? JSON.stringify(input.context_packet) : null,
        packetMode,
        input.timeout_ms ?? config.defaultTimeoutMs,
        input.lease?.heartbeat_ms ?? config.leaseHeartbeatMs,
        input.max_attempts ?? config.maxAttempts,
        this.ctx.now(),
      );
    this.ctx.events.emit('unit.enqueued', { unit_id: id, kind, build_request_id: input.build_request_id ?? null });
    this.ctx.notifyWork();
    return this.get(id)!;
  }

  row(id: string): UnitRow | undefined {
    return this.ctx.db.prepare('SELECT * FROM units WHERE id = ?').get(id) as UnitRow | undefined;
  }

  get(id: string): UnitRecord | undefined {
    const row = this.row(id);
    return row ? toUnitRecord(row) : undefined;
  }

  list(filter: UnitFilter = {}): UnitRecord[] {
    const rows = this.ctx.db
      .prepare(
        `SELECT * FROM units WHERE (@status IS NULL OR status = @status) AND (@kind IS NULL OR kind = @kind)
           AND (@request IS NULL OR build_request_id = @request) AND (@runner IS NULL OR runner_id = @runner OR last_runner_id = @runner)
         ORDER BY seq`,
      )
      .all({
        status: filter.status ?? null,
        kind: filter.kind ?? null,
        request: filter.build_request_id ?? null,
        runner: filter.runner_id ?? null,
      }) as UnitRow[];
    return rows.map(toUnitRecord);
  }

  /** Cancel from the admin side: unstarted work ends now, running work is asked to stop. */
  cancel(id: string, reason = 'canceled_by_admin'): UnitRecord {
    const row = this.row(id);
    if (!row) throw new HttpError(404, 'not_found', 'unknown unit');
    const now = this.ctx.now();
    if (row.status === 'queued' || row.status === 'claimed') {
      this.ctx.db
        .prepare("UPDATE units SET status = 'canceled', finished_at = ?, status_reason = ?, lease_expires_at = NULL WHERE id = ?")
        .run(now, reason, id);
    } else if (row.status === 'running') {
      this.ctx.db.prepare('UPDATE units SET cancel_requested_at = ?, status_reason = ? WHERE id = ?').run(now, reason, id);
    } else {
      throw new HttpError(409, 'unit_finished', `unit is already ${row.status}`);
    }
    this.ctx.events.emit('unit.cancel_requested', { unit_id: id, reason });
    this.ctx.notifyWork();
    return this.get(id)!;
  }
}

function defaultPrompt(kind: UnitKind): string {
  return kind === 'turn_execution'
    ? 'Answer the seat member’s latest message using the tools available to this seat.'
    : 'Carry out the current phase of the build request within the granted authority.';
}
