import type { Capabilities, CapacityObservationSummary, HeartbeatRequestParsed, HeartbeatResponse, Telemetry } from '../../shared/protocol';
import { nextSeq, parseJson } from '../db/database';
import type { EmulatorContext } from '../context';
import { iso } from '../context';
import { hashSecret, newId, newSecret } from '../crypto';
import { HttpError } from '../http/reply';

interface RunnerRow {
  id: string;
  tenant_id: string;
  name: string;
  platform: string | null;
  hostname: string | null;
  runner_version: string | null;
  paused: number;
  capabilities: string | null;
  telemetry: string | null;
  last_heartbeat_at: number | null;
  created_at: number;
  revoked_at: number | null;
}

export interface RunnerRecord {
  id: string;
  tenant_id: string;
  name: string;
  platform: string | null;
  hostname: string | null;
  runner_version: string | null;
  paused: boolean;
  capabilities: Capabilities | null;
  telemetry: Telemetry | null;
  last_heartbeat_at: string | null;
  created_at: string;
  revoked_at: string | null;
}

/** Scheduling view of a runner, from its last heartbeat. */
export interface RunnerCapacity {
  maxSessions: number;
  accountAlias: string;
  accountState: string;
}

export function runnerCapacity(runner: RunnerRecord): RunnerCapacity {
  const alias = runner.telemetry?.model_account?.alias?.trim() || 'default';
  return {
    maxSessions: runner.telemetry?.max_sessions ?? 1,
    accountAlias: alias,
    accountState: runner.telemetry?.model_account?.state ?? 'unknown',
  };
}

export class RunnerService {
  constructor(private readonly ctx: EmulatorContext) {}

  create(input: { name: string; tenant_id: string; platform?: string | null; hostname?: string | null; runner_version?: string | null }): {
    runner: RunnerRecord;
    secret: string;
  } {
    const id = newId();
    const secret = newSecret('rsec');
    this.ctx.db
      .prepare(
        `INSERT INTO runners (id, tenant_id, name, platform, hostname, runner_version, secret_hash, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, input.tenant_id, input.name, input.platform ?? null, input.hostname ?? null, input.runner_version ?? null, hashSecret(secret), this.ctx.now());
    this.ctx.events.emit('runner.paired', { runner_id: id, tenant_id: input.tenant_id, name: input.name });
    return { runner: this.get(id)!, secret };
  }

  /** Resolves a runner bearer, or throws 401 (unknown or revoked secret). */
  authenticate(authorization: string | undefined): RunnerRecord {
    const token = bearer(authorization);
    const row = token ? (this.ctx.db.prepare('SELECT * FROM runners WHERE secret_hash = ?').get(hashSecret(token)) as RunnerRow | undefined) : undefined;
    if (!row || row.revoked_at !== null) {
      throw new HttpError(401, 'unauthorized', 'runner secret missing, unknown or revoked', {}, { 'www-authenticate': 'Bearer' });
    }
    return toRecord(row);
  }

  revoke(id: string, by: 'runner' | 'admin'): void {
    const info = this.ctx.db.prepare('UPDATE runners SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(this.ctx.now(), id);
    if (!info.changes) throw new HttpError(404, 'not_found', 'unknown or already revoked runner');
    this.ctx.events.emit('runner.unpaired', { runner_id: id, by });
    // Its held claims end now, answered 401: the runner learns of the revocation at once, not after a long-poll.
    this.ctx.notifyWork();
  }

  get(id: string): RunnerRecord | undefined {
    const row = this.ctx.db.prepare('SELECT * FROM runners WHERE id = ?').get(id) as RunnerRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  list(): RunnerRecord[] {
    return (this.ctx.db.prepare('SELECT * FROM runners ORDER BY created_at').all() as RunnerRow[]).map(toRecord);
  }

  heartbeat(runner: RunnerRecord, body: HeartbeatRequestParsed): HeartbeatResponse {
    const now = this.ctx.now();
    const telemetry = body.telemetry ?? runner.telemetry;
    const capabilities = body.capabilities ?? runner.capabilities;
    const paused = body.paused ?? runner.paused;
    this.ctx.db
      .prepare(
        `UPDATE runners SET name = ?, runner_version = ?, paused = ?, capabilities = ?, telemetry = ?, last_heartbeat_at = ?
         WHERE id = ?`,
      )
      .run(
        body.name ?? runner.name,
        body.runner_version ?? runner.runner_version,
        paused ? 1 : 0,
        capabilities ? JSON.stringify(capabilities) : null,
        telemetry ? JSON.stringify(telemetry) : null,
        now,
        runner.id,
      );
    const observation = {
      runner_name: body.name ?? runner.name,
      runner_version: body.runner_version ?? telemetry?.runner_version ?? runner.runner_version,
      paused,
      capabilities: capabilities ?? null,
      telemetry: telemetry ?? null,
    };
    this.ctx.db
      .prepare('INSERT INTO capacity_observations (id, seq, runner_id, tenant_id, observed_at, body) VALUES (?, ?, ?, ?, ?, ?)')
      .run(newId(), nextSeq(this.ctx.db, 'capacity_observations'), runner.id, runner.tenant_id, now, JSON.stringify(observation));
    this.ctx.events.emit('runner.heartbeat', {
      runner_id: runner.id,
      paused,
      active_sessions: telemetry?.active_sessions ?? null,
      max_sessions: telemetry?.max_sessions ?? null,
    });
    // A new max_sessions or an unpause can make held work assignable.
    this.ctx.notifyWork();
    const { nextHeartbeatMs, longPollMaxMs, claimCarriesHeartbeat, claimCancelNotices } = this.ctx.config;
    const claim = {
      long_poll_max_ms: longPollMaxMs,
      ...(claimCarriesHeartbeat ? { carries_heartbeat: true } : {}),
      ...(claimCancelNotices ? { cancel_notices: true } : {}),
    };
    return { runner_id: runner.id, server_time: iso(now), next_heartbeat_ms: nextHeartbeatMs, ...(longPollMaxMs > 0 ? { claim } : {}) };
  }

  /** Capacity observations, newest first. */
  observations(filter: { tenant_id?: string; runner_id?: string | undefined; limit?: number } = {}): CapacityObservationSummary[] {
    const rows = this.ctx.db
      .prepare(
        `SELECT o.id, o.runner_id, o.observed_at, o.body FROM capacity_observations o
         WHERE (? IS NULL OR o.tenant_id = ?) AND (? IS NULL OR o.runner_id = ?) ORDER BY o.seq DESC LIMIT ?`,
      )
      .all(filter.tenant_id ?? null, filter.tenant_id ?? null, filter.runner_id ?? null, filter.runner_id ?? null, filter.limit ?? 200) as Array<{
      id: string;
      runner_id: string;
      observed_at: number;
      body: string;
    }>;
    return rows.map((row) => {
      const body = parseJson<{
        runner_name: string;
        runner_version: string | null;
        paused: boolean;
        telemetry: Telemetry | null;
      }>(row.body, { runner_name: '', runner_version: null, paused: false, telemetry: null });
      const t = body.telemetry;
      return {
        id: row.id,
        runner_id: row.runner_id,
        runner_name: body.runner_name,
        observed_at: iso(row.observed_at),
        os_platform: t?.os?.platform ?? null,
        runner_version: body.runner_version ?? null,
        cpu_count: t?.cpu?.count ?? null,
        cpu_load_percent: t?.cpu?.load_percent ?? null,
        memory_total_bytes: t?.memory?.total_bytes ?? null,
        memory_free_bytes: t?.memory?.free_bytes ?? null,
        active_sessions: t?.active_sessions ?? null,
        max_sessions: t?.max_sessions ?? null,
        runtimes: t?.runtimes ?? [],
        model_account_alias: t?.model_account?.alias?.trim() || 'default',
        model_account_state: t?.model_account?.state ?? 'unknown',
        paused: body.paused,
      };
    });
  }
}

export function bearer(authorization: string | undefined): string | null {
  const match = /^Bearer\s+(\S{1,500})\s*$/i.exec(authorization ?? '');
  return match ? match[1]! : null;
}

function toRecord(row: RunnerRow): RunnerRecord {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    platform: row.platform,
    hostname: row.hostname,
    runner_version: row.runner_version,
    paused: row.paused === 1,
    capabilities: parseJson<Capabilities | null>(row.capabilities, null),
    telemetry: parseJson<Telemetry | null>(row.telemetry, null),
    last_heartbeat_at: row.last_heartbeat_at === null ? null : iso(row.last_heartbeat_at),
    created_at: iso(row.created_at),
    revoked_at: row.revoked_at === null ? null : iso(row.revoked_at),
  };
}
