import type { OperatorRole } from '../../shared/protocol';
import { getMeta, setMeta } from '../db/database';
import type { EmulatorContext } from '../context';
import { iso } from '../context';
import { hashSecret, newId, newSecret } from '../crypto';
import { HttpError } from '../http/reply';

export interface TenantRecord {
  id: string;
  name: string;
  created_at: string;
}

export interface OperatorRecord {
  id: string;
  tenant_id: string;
  name: string;
  role: OperatorRole;
  created_at: string;
}

export interface BrowserSession {
  operator: OperatorRecord;
  csrf: string;
}

/** Tenants, operators and the dev sign-in's cookie sessions. */
export class IdentityService {
  constructor(private readonly ctx: EmulatorContext) {}

  /** Every emulator has one tenant to pair runners into, even without a seed. */
  ensureDefaultTenant(): string {
    const existing = getMeta(this.ctx.db, 'default_tenant_id');
    if (existing && this.getTenant(existing)) return existing;
    const tenant = this.createTenant('Development tenant');
    setMeta(this.ctx.db, 'default_tenant_id', tenant.id);
    return tenant.id;
  }

  defaultTenantId(): string {
    return this.ensureDefaultTenant();
  }

  setDefaultTenant(id: string): void {
    if (!this.getTenant(id)) throw new HttpError(404, 'not_found', 'unknown tenant');
    setMeta(this.ctx.db, 'default_tenant_id', id);
  }

  createTenant(name: string, id: string = newId()): TenantRecord {
    const tenant = { id, name, created_at: iso(this.ctx.now()) };
    this.ctx.db.prepare('INSERT INTO tenants (id, name, created_at) VALUES (?, ?, ?)').run(tenant.id, tenant.name, tenant.created_at);
    this.ctx.events.emit('tenant.created', { tenant_id: tenant.id, name });
    return tenant;
  }

  /** Removes a tenant nothing belongs to (the placeholder tenant once the demo seed takes over). */
  dropIfEmpty(id: string): void {
    const used = ['operators', 'runners', 'projects', 'units', 'build_requests'].some((table) =>
      this.ctx.db.prepare(`SELECT 1 FROM ${table} WHERE tenant_id = ? LIMIT 1`).get(id),
    );
    if (!used) this.ctx.db.prepare('DELETE FROM tenants WHERE id = ?').run(id);
  }

  getTenant(id: string): TenantRecord | undefined {
    return this.ctx.db.prepare('SELECT * FROM tenants WHERE id = ?').get(id) as TenantRecord | undefined;
  }

  listTenants(): TenantRecord[] {
    return this.ctx.db.prepare('SELECT * FROM tenants ORDER BY created_at, name').all() as TenantRecord[];
  }

  createOperator(input: { name: string; role: OperatorRole; tenant_id?: string; id?: string }): OperatorRecord {
    const tenantId = input.tenant_id ?? this.defaultTenantId();
    if (!this.getTenant(tenantId)) throw new HttpError(404, 'not_found', 'unknown tenant_id');
    const op: OperatorRecord = { id: input.id ?? newId(), tenant_id: tenantId, name: input.name, role: input.role, created_at: iso(this.ctx.now()) };
    this.ctx.db
      .prepare('INSERT INTO operators (id, tenant_id, name, role, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(op.id, op.tenant_id, op.name, op.role, op.created_at);
    this.ctx.events.emit('operator.created', { operator_id: op.id, tenant_id: tenantId, role: op.role });
    return op;
  }

  /** Dev sign-in by typed name: reuse the operator with that name and role in the default tenant. */
  findOrCreateOperator(name: string, role: OperatorRole): OperatorRecord {
    const tenantId = this.defaultTenantId();
    const found = this.ctx.db.prepare('SELECT * FROM operators WHERE tenant_id = ? AND name = ? AND role = ?').get(tenantId, name, role) as
      OperatorRecord | undefined;
    return found ?? this.createOperator({ name, role, tenant_id: tenantId });
  }

  getOperator(id: string): OperatorRecord | undefined {
    return this.ctx.db.prepare('SELECT * FROM operators WHERE id = ?').get(id) as OperatorRecord | undefined;
  }

  listOperators(tenantId?: string): OperatorRecord[] {
    return this.ctx.db
      .prepare('SELECT * FROM operators WHERE ? IS NULL OR tenant_id = ? ORDER BY created_at, name')
      .all(tenantId ?? null, tenantId ?? null) as OperatorRecord[];
  }

  createSession(operatorId: string): { cookie: string; csrf: string } {
    const cookie = newSecret('ses');
    const csrf = newSecret('csrf');
    const now = this.ctx.now();
    this.ctx.db
      .prepare('INSERT INTO sessions (id_hash, operator_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(hashSecret(cookie), operatorId, csrf, now, now + this.ctx.config.sessionTtlMs);
    this.ctx.events.emit('session.signed_in', { operator_id: operatorId });
    return { cookie, csrf };
  }

  session(cookie: string | undefined): BrowserSession | null {
    if (!cookie || cookie.length > 200) return null;
    const row = this.ctx.db.prepare('SELECT operator_id, csrf, expires_at FROM sessions WHERE id_hash = ?').get(hashSecret(cookie)) as
      { operator_id: string; csrf: string; expires_at: number } | undefined;
    if (!row || row.expires_at <= this.ctx.now()) return null;
    const operator = this.getOperator(row.operator_id);
    return operator ? { operator, csrf: row.csrf } : null;
  }

  endSession(cookie: string | undefined): void {
    if (cookie) this.ctx.db.prepare('DELETE FROM sessions WHERE id_hash = ?').run(hashSecret(cookie));
  }
}
