import type { ClaimedUnit } from '../../shared/protocol';
import type { EmulatorContext } from '../context';
import { iso } from '../context';
import { hashSecret, newSecret } from '../crypto';
import type { RunnerRecord, RunnerService } from './runners';
import { runnerCapacity } from './runners';
import type { UnitRow, UnitStore } from './units';
import { toUnitRecord } from './units';
import type { ForgeWorkHooks } from './work-hooks';

/** Requests whose units may be handed out; paused/blocked/terminal requests hold theirs. */
const CLAIMABLE_REQUEST_STATUSES = "('open', 'in_progress')";

export interface ClaimedPayload {
  kind: 'turn_execution' | 'work_order';
  unit: ClaimedUnit & Record<string, unknown>;
}

/**
 * Picks the next assignable unit for a runner, honouring the caps: the runner's
 * `max_sessions` (from its last heartbeat), one session on the `default` model
 * account, and per-tenant and per-project limits. Turn executions go first.
 */
export class Scheduler {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly runners: RunnerService,
    private readonly units: UnitStore,
    private readonly forge: ForgeWorkHooks,
  ) {}

  /**
   * `runtimes`: what the claiming runner said it can run (null: it did not say, as the seed).
   * A unit whose brain is none of them stays queued for another runner; `auto` (or no brain)
   * goes to anyone.
   */
  tryClaim(runnerId: string, interactiveOnly: boolean, runtimes: readonly string[] | null = null): ClaimedPayload | null {
    if (runtimes !== null && runtimes.length === 0) return null;
    const runner = this.runners.get(runnerId);
    if (!runner || runner.revoked_at || runner.paused) return null;
    const { db, config } = this.ctx;
    const capacity = runnerCapacity(runner);
    const runnerCap = capacity.accountAlias === 'default' ? Math.min(capacity.maxSessions, config.caps.defaultAccount) : capacity.maxSessions;
    const active = db.prepare("SELECT COUNT(*) AS n FROM units WHERE runner_id = ? AND status IN ('claimed', 'running')").get(runner.id) as { n: number };
    if (active.n >= runnerCap) return null;
    const tenantActive = db.prepare("SELECT COUNT(*) AS n FROM units WHERE tenant_id = ? AND status IN ('claimed', 'running')").get(runner.tenant_id) as {
      n: number;
    };
    if (tenantActive.n >= config.caps.tenant) return null;

    const candidates = db
      .prepare(
        `SELECT u.*, b.software_project_id AS project_id FROM units u LEFT JOIN build_requests b ON b.id = u.build_request_id
         WHERE u.status = 'queued' AND u.tenant_id = ? AND (u.target_runner_id IS NULL OR u.target_runner_id = ?)
           AND (b.id IS NULL OR b.status IN ${CLAIMABLE_REQUEST_STATUSES})
           AND (? = 0 OR u.kind = 'turn_execution')
           AND (? IS NULL OR u.brain IS NULL OR u.brain = 'auto' OR u.brain IN (SELECT value FROM json_each(?)))
         ORDER BY CASE u.kind WHEN 'turn_execution' THEN 0 ELSE 1 END, u.seq LIMIT 100`,
      )
      .all(runner.tenant_id, runner.id, interactiveOnly ? 1 : 0, runtimes === null ? null : 1, JSON.stringify(runtimes ?? [])) as Array<
      UnitRow & { project_id: string | null }
    >;

    const projectActive = db.prepare(
      `SELECT COUNT(*) AS n FROM units u JOIN build_requests b ON b.id = u.build_request_id
       WHERE b.software_project_id = ? AND u.status IN ('claimed', 'running')`,
    );
    for (const candidate of candidates) {
      if (candidate.project_id && (projectActive.get(candidate.project_id) as { n: number }).n >= config.caps.project) continue;
      return this.assign(candidate, runner);
    }
    return null;
  }

  /** [v1] The work this runner could be handed, by runtime (`auto` for a unit that names none): no caps, nothing claimed. */
  lanes(runner: RunnerRecord): { runtime: string; queued: number }[] {
    const rows = this.ctx.db
      .prepare(
        `SELECT COALESCE(u.brain, 'auto') AS runtime, COUNT(*) AS queued FROM units u LEFT JOIN build_requests b ON b.id = u.build_request_id
         WHERE u.status = 'queued' AND u.tenant_id = ? AND (u.target_runner_id IS NULL OR u.target_runner_id = ?)
           AND (b.id IS NULL OR b.status IN ${CLAIMABLE_REQUEST_STATUSES})
         GROUP BY COALESCE(u.brain, 'auto') ORDER BY runtime`,
      )
      .all(runner.tenant_id, runner.id) as { runtime: string; queued: number }[];
    return rows;
  }

  private assign(row: UnitRow, runner: RunnerRecord): ClaimedPayload {
    const now = this.ctx.now();
    const leaseExpiresAt = now + row.lease_heartbeat_ms * this.ctx.config.leaseTtlFactor;
    const attempt = row.attempt + 1;
    const token = newSecret('mcp');
    const tokenExpiresAt = now + row.timeout_ms + this.ctx.config.mcpTokenGraceMs;
    this.ctx.db.transaction(() => {
      this.ctx.db
        .prepare(
          `UPDATE units SET status = 'claimed', runner_id = ?, last_runner_id = ?, attempt = ?, claimed_at = ?,
             lease_expires_at = ?, status_reason = NULL WHERE id = ?`,
        )
        .run(runner.id, runner.id, attempt, now, leaseExpiresAt, row.id);
      this.ctx.db
        .prepare('INSERT INTO mcp_tokens (token_hash, unit_id, attempt, expires_at) VALUES (?, ?, ?, ?)')
        .run(hashSecret(token), row.id, attempt, tokenExpiresAt);
    })();
    const claimed = this.units.row(row.id)!;
    this.ctx.events.emit('unit.claimed', { unit_id: row.id, kind: row.kind, runner_id: runner.id, attempt });
    const record = toUnitRecord(claimed);
    const packet =
      claimed.packet_mode === 'explicit' ? record.context_packet : claimed.packet_mode === 'auto' ? this.forge.buildContextPacket(claimed, runner) : null;
    const unit: Record<string, unknown> = {
      id: claimed.id,
      kind: claimed.kind,
      ...(claimed.brain ? { brain: claimed.brain } : {}),
      prompt: claimed.prompt,
      mcp: { url: record.mcp_url ?? '/mcp', token, expires_at: iso(tokenExpiresAt) },
    };
    for (const key of ['seat', 'charter_ref', 'user_id', 'session_id', 'aicos'] as const) {
      if (record[key] !== undefined) unit[key] = record[key];
    }
    if (claimed.build_request_id) unit.build_request_id = claimed.build_request_id;
    if (claimed.phase_run_id) unit.phase_run_id = claimed.phase_run_id;
    if (packet !== null && packet !== undefined) unit.context_packet = packet;
    unit.timeout_ms = claimed.timeout_ms;
    unit.lease = { heartbeat_ms: claimed.lease_heartbeat_ms, expires_at: iso(leaseExpiresAt) };
    unit.attempt = attempt;
    Object.assign(unit, record.extra ?? {});
    return { kind: claimed.kind, unit: unit as ClaimedPayload['unit'] };
  }
}
