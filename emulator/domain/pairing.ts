import {
  formatUserCode,
  normalizeUserCode,
  type PairingClaimByCode,
  type PairingClaimResponse,
  type PairingStartRequest,
  type PairingStartResponse,
} from '../../shared/protocol';
import type { EmulatorContext } from '../context';
import { iso } from '../context';
import { newId, newUserCode } from '../crypto';
import { HttpError } from '../http/reply';
import { evaluatePoll } from './device-poll';
import type { RunnerService } from './runners';

interface PairingRow {
  id: string;
  user_code: string;
  status: 'pending' | 'approved' | 'denied' | 'claimed';
  name: string;
  platform: string;
  runner_version: string | null;
  hostname: string | null;
  source_ip: string | null;
  tenant_id: string | null;
  decided_by: string | null;
  runner_id: string | null;
  interval_s: number;
  last_poll_at: number | null;
  created_at: number;
  expires_at: number;
}

export interface PairingRecord {
  id: string;
  user_code: string;
  status: 'pending' | 'approved' | 'denied' | 'claimed' | 'expired';
  name: string;
  platform: string;
  runner_version: string | null;
  hostname: string | null;
  source_ip: string | null;
  tenant_id: string | null;
  decided_by: string | null;
  runner_id: string | null;
  interval: number;
  created_at: string;
  expires_at: string;
}

/** Runner pairing by device code (protocol §1). */
export class PairingService {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly runners: RunnerService,
    private readonly defaultTenantId: () => string,
  ) {}

  start(input: PairingStartRequest, sourceIp: string): PairingStartResponse {
    const now = this.ctx.now();
    const { pairingIntervalSec, pairingExpiresInSec } = this.ctx.config;
    const id = newId();
    const code = this.uniqueCode(now);
    this.ctx.db
      .prepare(
        `INSERT INTO pairings (id, user_code, status, name, platform, runner_version, hostname, source_ip, interval_s,
           created_at, expires_at) VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        code,
        input.name,
        input.platform,
        input.runner_version ?? null,
        input.hostname ?? null,
        sourceIp,
        pairingIntervalSec,
        now,
        now + pairingExpiresInSec * 1000,
      );
    this.ctx.events.emit('pairing.started', { pairing_id: id, user_code: formatUserCode(code), name: input.name });
    const display = formatUserCode(code);
    return {
      pairing_id: id,
      user_code: display,
      verification_uri: `${this.ctx.baseUrl}/device`,
      verification_uri_complete: `${this.ctx.baseUrl}/device?code=${display}`,
      expires_in: pairingExpiresInSec,
      interval: pairingIntervalSec,
    };
  }

  /**
   * The seed's authenticated start (`runner.pairing.start` with an operator bearer): the
   * signed-in operator's request is the approval, so the code is issued already approved
   * for their tenant and the runner claims it with the code. [v1]
   */
  startForOperator(input: PairingStartRequest, sourceIp: string, operator: { id: string; tenant_id: string }): PairingStartResponse {
    const started = this.start(input, sourceIp);
    this.decide(started.user_code, 'approve', { operatorId: operator.id, tenantId: operator.tenant_id });
    return started;
  }

  /**
   * A code an operator gets from the web page ("Add a runner") for a runner started with
   * `--user-code`: approved at once for the operator's tenant; the runner names itself when
   * it claims. [v1]
   */
  issueCode(operator: { id: string; tenant_id: string }, name: string | null, sourceIp: string | null): PairingRecord {
    const now = this.ctx.now();
    const id = newId();
    const code = this.uniqueCode(now);
    this.ctx.db
      .prepare(
        `INSERT INTO pairings (id, user_code, status, name, platform, runner_version, hostname, source_ip, tenant_id, decided_by,
           interval_s, created_at, expires_at) VALUES (?, ?, 'approved', ?, '', NULL, NULL, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        code,
        name ?? '',
        sourceIp,
        operator.tenant_id,
        operator.id,
        this.ctx.config.pairingIntervalSec,
        now,
        now + this.ctx.config.pairingExpiresInSec * 1000,
      );
    this.ctx.events.emit('pairing.issued', { pairing_id: id, user_code: formatUserCode(code), operator_id: operator.id });
    return this.toRecord(this.row(id)!);
  }

  /** A claim with a user code (seed `--user-code`); the runner's own details fill what the code lacks. */
  claimByCode(input: PairingClaimByCode): PairingClaimResponse {
    const canonical = normalizeUserCode(input.user_code);
    const row = canonical
      ? (this.ctx.db.prepare('SELECT * FROM pairings WHERE user_code = ? ORDER BY created_at DESC LIMIT 1').get(canonical) as PairingRow | undefined)
      : undefined;
    if (!row) throw new HttpError(400, 'expired_token', 'no pairing has that code (mistyped, or it expired); ask for a new one');
    this.ctx.db
      .prepare(
        "UPDATE pairings SET name = CASE WHEN name = '' THEN ? ELSE name END, platform = CASE WHEN platform = '' THEN ? ELSE platform END, " +
          'runner_version = COALESCE(runner_version, ?), hostname = COALESCE(hostname, ?) WHERE id = ?',
      )
      .run(input.name ?? 'runner', input.platform ?? 'linux', input.runner_version ?? null, input.hostname ?? null, row.id);
    return this.claim(row.id);
  }

  /** One poll. Throws the RFC 8628-shaped 400 until the code is approved. */
  claim(pairingId: string): PairingClaimResponse {
    const row = this.row(pairingId);
    if (!row) throw new HttpError(400, 'expired_token', 'unknown or finished pairing; start a new one');
    const now = this.ctx.now();
    const { outcome, interval_s } = evaluatePoll(row, now);
    this.ctx.db.prepare('UPDATE pairings SET last_poll_at = ?, interval_s = ? WHERE id = ?').run(now, interval_s, row.id);
    switch (outcome) {
      case 'approved':
        return this.issue(row);
      case 'slow_down':
        throw new HttpError(400, 'slow_down', `poll no faster than every ${interval_s} s`, { interval: interval_s });
      case 'consumed':
        throw new HttpError(400, 'expired_token', 'this pairing was already claimed; start a new one');
      case 'expired_token':
        throw new HttpError(400, 'expired_token', 'the code expired; start a new pairing');
      case 'access_denied':
        throw new HttpError(400, 'access_denied', 'a human denied this pairing');
      default:
        throw new HttpError(400, 'authorization_pending', 'waiting for a human to approve the code');
    }
  }

  /** The newest pairing with this code that a human could still decide, or its decided state. */
  findByCode(code: string): PairingRecord | undefined {
    const canonical = normalizeUserCode(code);
    if (!canonical) return undefined;
    const row = this.ctx.db.prepare('SELECT * FROM pairings WHERE user_code = ? ORDER BY created_at DESC LIMIT 1').get(canonical) as PairingRow | undefined;
    return row ? this.toRecord(row) : undefined;
  }

  decide(code: string, decision: 'approve' | 'deny', by: { operatorId?: string | undefined; tenantId?: string | undefined } = {}): PairingRecord {
    const record = this.findByCode(code);
    if (!record) throw new HttpError(404, 'not_found', 'no pairing with that code');
    if (record.status !== 'pending') throw new HttpError(409, 'already_decided', `pairing is ${record.status}`);
    const tenantId = by.tenantId ?? this.defaultTenantId();
    const status = decision === 'approve' ? 'approved' : 'denied';
    this.ctx.db
      .prepare('UPDATE pairings SET status = ?, tenant_id = ?, decided_by = ? WHERE id = ?')
      .run(status, decision === 'approve' ? tenantId : null, by.operatorId ?? 'admin', record.id);
    this.ctx.events.emit(`pairing.${status}`, { pairing_id: record.id, user_code: record.user_code, operator_id: by.operatorId ?? null });
    return this.toRecord(this.row(record.id)!);
  }

  list(): PairingRecord[] {
    return (this.ctx.db.prepare('SELECT * FROM pairings ORDER BY created_at DESC').all() as PairingRow[]).map((r) => this.toRecord(r));
  }

  private issue(row: PairingRow): PairingClaimResponse {
    const tenantId = row.tenant_id ?? this.defaultTenantId();
    const { runner, secret } = this.runners.create({
      name: row.name,
      tenant_id: tenantId,
      platform: row.platform,
      hostname: row.hostname,
      runner_version: row.runner_version,
    });
    this.ctx.db.prepare("UPDATE pairings SET status = 'claimed', runner_id = ? WHERE id = ?").run(runner.id, row.id);
    this.ctx.events.emit('pairing.claimed', { pairing_id: row.id, runner_id: runner.id, tenant_id: tenantId });
    if (this.ctx.config.pairingClaimCredentialsOnly) return { runner_id: runner.id, runner_secret: secret };
    // [v1] The tenant's name too, so the runner can show it rather than an id.
    const tenant = this.ctx.db.prepare('SELECT name FROM tenants WHERE id = ?').get(tenantId) as { name: string } | undefined;
    return { runner_id: runner.id, runner_secret: secret, tenant_id: tenantId, name: runner.name, ...(tenant ? { tenant_name: tenant.name } : {}) };
  }

  private uniqueCode(now: number): string {
    for (;;) {
      const code = newUserCode();
      const clash = this.ctx.db.prepare("SELECT 1 FROM pairings WHERE user_code = ? AND status = 'pending' AND expires_at > ?").get(code, now);
      if (!clash) return code;
    }
  }

  private row(id: string): PairingRow | undefined {
    return this.ctx.db.prepare('SELECT * FROM pairings WHERE id = ?').get(id) as PairingRow | undefined;
  }

  private toRecord(row: PairingRow): PairingRecord {
    const expired = row.status === 'pending' && row.expires_at <= this.ctx.now();
    return {
      id: row.id,
      user_code: formatUserCode(row.user_code),
      status: expired ? 'expired' : row.status,
      name: row.name,
      platform: row.platform,
      runner_version: row.runner_version,
      hostname: row.hostname,
      source_ip: row.source_ip,
      tenant_id: row.tenant_id,
      decided_by: row.decided_by,
      runner_id: row.runner_id,
      interval: row.interval_s,
      created_at: iso(row.created_at),
      expires_at: iso(row.expires_at),
    };
  }
}
