import type { ConfirmationHandoff, ConfirmationStatus, LifecycleCommandId } from '../../../shared/protocol';
import { getMeta, parseJson, setMeta } from '../../db/database';
import type { EmulatorContext } from '../../context';
import { iso } from '../../context';
import { newId } from '../../crypto';
import { HttpError } from '../../http/reply';
import type { OperatorRecord } from '../identity';
import type { ForgeLifecycle } from './lifecycle';

interface ConfirmationRow {
  id: string;
  tenant_id: string;
  requested_by: string;
  command_id: LifecycleCommandId;
  input: string;
  status: ConfirmationStatus['status'];
  output: string | null;
  error: string | null;
  decided_by: string | null;
  decided_at: number | null;
  created_at: number;
  expires_at: number;
}

export interface ConfirmationRecord extends ConfirmationStatus {
  tenant_id: string;
  requested_by: string;
  input: Record<string, unknown>;
  decided_by: string | null;
  created_at: string;
}

/** Human confirmation handoff for lifecycle commands (admin toggle, persisted). */
export class ConfirmationService {
  constructor(
    private readonly ctx: EmulatorContext,
    private readonly lifecycle: ForgeLifecycle,
  ) {}

  get enabled(): boolean {
    return getMeta(this.ctx.db, 'confirmation_mode') === '1';
  }

  setEnabled(enabled: boolean): void {
    setMeta(this.ctx.db, 'confirmation_mode', enabled ? '1' : '0');
    this.ctx.events.emit('forge.confirmation_mode', { enabled });
  }

  create(requester: OperatorRecord, commandId: LifecycleCommandId, input: object): ConfirmationHandoff {
    const id = newId();
    const now = this.ctx.now();
    const expiresAt = now + this.ctx.config.confirmationTtlMs;
    this.ctx.db
      .prepare(
        `INSERT INTO confirmations (id, tenant_id, requested_by, command_id, input, status, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)`,
      )
      .run(id, requester.tenant_id, requester.id, commandId, JSON.stringify(input), now, expiresAt);
    this.ctx.events.emit('forge.confirmation.requested', { confirmation_id: id, command_id: commandId, operator_id: requester.id });
    return { status: 'confirmation_required', confirmation: { id, url: `${this.ctx.baseUrl}/confirm/${id}`, expires_at: iso(expiresAt) } };
  }

  get(id: string, tenantId?: string): ConfirmationRecord | undefined {
    const row = this.ctx.db.prepare('SELECT * FROM confirmations WHERE id = ?').get(id) as ConfirmationRow | undefined;
    if (!row || (tenantId && row.tenant_id !== tenantId)) return undefined;
    return this.toRecord(row);
  }

  list(): ConfirmationRecord[] {
    return (this.ctx.db.prepare('SELECT * FROM confirmations ORDER BY created_at DESC').all() as ConfirmationRow[]).map((r) => this.toRecord(r));
  }

  /** A signed-in tenant admin of the same tenant confirms (the command runs as them) or declines. */
  decide(id: string, decider: OperatorRecord, decision: 'confirm' | 'decline'): ConfirmationRecord {
    const record = this.get(id);
    if (!record || record.tenant_id !== decider.tenant_id) throw new HttpError(404, 'not_found', 'unknown confirmation');
    if (record.status !== 'pending') throw new HttpError(409, 'already_decided', `confirmation is ${record.status}`);
    if (decider.role !== 'tenant_admin') throw new HttpError(403, 'forbidden', 'only a tenant_admin can confirm this action');
    const now = this.ctx.now();
    let status: ConfirmationStatus['status'] = 'declined';
    let output: unknown = null;
    let error: unknown = null;
    if (decision === 'confirm') {
      try {
        output = this.lifecycle.run(record.command_id as LifecycleCommandId, { operator_id: decider.id, tenant_id: decider.tenant_id }, record.input as never);
        status = 'confirmed';
      } catch (e) {
        status = 'failed';
        error = e instanceof HttpError ? { error: e.code, message: e.message } : { error: 'internal', message: 'command failed' };
      }
    }
    this.ctx.db
      .prepare('UPDATE confirmations SET status = ?, output = ?, error = ?, decided_by = ?, decided_at = ? WHERE id = ?')
      .run(status, output ? JSON.stringify(output) : null, error ? JSON.stringify(error) : null, decider.id, now, id);
    this.ctx.events.emit(`forge.confirmation.${status}`, { confirmation_id: id, operator_id: decider.id });
    return this.get(id)!;
  }

  private toRecord(row: ConfirmationRow): ConfirmationRecord {
    const expired = row.status === 'pending' && row.expires_at <= this.ctx.now();
    return {
      id: row.id,
      command_id: row.command_id,
      status: expired ? 'expired' : row.status,
      expires_at: iso(row.expires_at),
      ...(row.output ? { output: parseJson(row.output, null) } : {}),
      ...(row.error ? { error: parseJson(row.error, { error: 'unknown' }) } : {}),
      tenant_id: row.tenant_id,
      requested_by: row.requested_by,
      input: parseJson(row.input, {}),
      decided_by: row.decided_by,
      created_at: iso(row.created_at),
    };
  }
}
