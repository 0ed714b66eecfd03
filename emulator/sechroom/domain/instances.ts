import type { ExecutorInstance, ExecutorRegistrationInput } from '../../../shared/protocol/sechroom';
import { iso, type EmulatorContext } from '../../context';
import { nextSeq, parseJson } from '../../db/database';
import { HttpError } from '../../http/reply';
import { newSechroomId } from '../ids';
import type { Caller } from './auth';

export interface InstanceRow {
  id: string;
  seq: number;
  tenant_id: string;
  operator_id: string;
  instance_key: string;
  lane_id: string;
  relay_id: string | null;
  runtime_kind: string | null;
  activation_mode: string | null;
  delivery_subscription_id: string | null;
  connector_id: string | null;
  capability_keys: string;
  tool_set_ref: string | null;
  ttl_seconds: number;
  expires_at: number;
  registered_at: number;
  refreshed_at: number;
  last_claim_at: number | null;
  deregistered_at: number | null;
  surface: string | null;
}

export type InstanceStatus = 'live' | 'lapsed' | 'deregistered';

const DEFAULT_TTL_S = 600;

/** Executor instance registrations: an advertisement with a 30–600 s TTL, kept alive by refresh. */
export class InstanceService {
  constructor(private readonly ctx: EmulatorContext) {}

  /** Registers, or re-registers the same `instanceKey` in place (same id, revived). */
  register(caller: Caller, input: ExecutorRegistrationInput): InstanceRow {
    const now = this.ctx.now();
    const ttl = input.ttlSeconds ?? DEFAULT_TTL_S;
    const fields = [
      caller.operator.id,
      input.laneId ?? input.instanceKey,
      input.relayId ?? null,
      input.runtimeKind ?? null,
      input.activationMode ?? null,
      input.deliverySubscriptionId ?? null,
      input.connectorId ?? null,
      JSON.stringify(input.claimedCapabilityKeys ?? []),
      input.toolSetRef ?? null,
      ttl,
      now + ttl * 1000,
      now,
      caller.surface,
    ];
    const existing = this.ctx.db.prepare('SELECT id FROM sr_instances WHERE tenant_id = ? AND instance_key = ?').get(caller.tenantId, input.instanceKey) as
      { id: string } | undefined;
    if (existing) {
      this.ctx.db
        .prepare(
          `UPDATE sr_instances SET operator_id = ?, lane_id = ?, relay_id = ?, runtime_kind = ?, activation_mode = ?, delivery_subscription_id = ?,
             connector_id = ?, capability_keys = ?, tool_set_ref = ?, ttl_seconds = ?, expires_at = ?, refreshed_at = ?, surface = ?,
             deregistered_at = NULL WHERE id = ?`,
        )
        .run(...fields, existing.id);
      this.ctx.events.emit('sechroom.instance.registered', { instance_id: existing.id, instance_key: input.instanceKey, reregistered: true });
      return this.get(existing.id)!;
    }
    const id = newSechroomId('exi');
    this.ctx.db
      .prepare(
        `INSERT INTO sr_instances (id, seq, tenant_id, instance_key, operator_id, lane_id, relay_id, runtime_kind, activation_mode,
           delivery_subscription_id, connector_id, capability_keys, tool_set_ref, ttl_seconds, expires_at, refreshed_at, surface, registered_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, nextSeq(this.ctx.db, 'sr_instances'), caller.tenantId, input.instanceKey, ...fields, now);
    this.ctx.events.emit('sechroom.instance.registered', { instance_id: id, instance_key: input.instanceKey, reregistered: false });
    return this.get(id)!;
  }

  refresh(caller: Caller, id: string, ttlSeconds: number | null | undefined): InstanceRow {
    const row = this.owned(caller, id);
    const ttl = ttlSeconds ?? row.ttl_seconds;
    const now = this.ctx.now();
    this.ctx.db.prepare('UPDATE sr_instances SET ttl_seconds = ?, expires_at = ?, refreshed_at = ? WHERE id = ?').run(ttl, now + ttl * 1000, now, id);
    this.ctx.events.emit('sechroom.instance.refreshed', { instance_id: id, ttl_seconds: ttl, was: this.status(row) });
    return this.get(id)!;
  }

  /** Idempotent: deregistering twice answers the same. Leases of the instance run on to completion or expiry. */
  deregister(caller: Caller, id: string): InstanceRow {
    const row = this.owned(caller, id, true);
    if (row.deregistered_at === null) {
      this.ctx.db.prepare('UPDATE sr_instances SET deregistered_at = ? WHERE id = ?').run(this.ctx.now(), id);
      this.ctx.events.emit('sechroom.instance.deregistered', { instance_id: id });
    }
    return this.get(id)!;
  }

  /** Ends the advertisement now (admin): the instance is lapsed until its next refresh. */
  lapse(id: string): InstanceRow {
    const row = this.get(id);
    if (!row) throw new HttpError(404, 'not_found', 'unknown instance');
    this.ctx.db.prepare('UPDATE sr_instances SET expires_at = MIN(expires_at, ?) WHERE id = ?').run(this.ctx.now(), id);
    this.ctx.events.emit('sechroom.instance.lapsed', { instance_id: id });
    return this.get(id)!;
  }

  /** The caller's instance (same tenant and operator); a deregistered one is unknown unless asked for. */
  owned(caller: Caller, id: string, includeDeregistered = false): InstanceRow {
    const row = this.get(id);
    if (!row || row.tenant_id !== caller.tenantId || row.operator_id !== caller.operator.id || (!includeDeregistered && row.deregistered_at !== null)) {
      throw new HttpError(404, 'unknown_instance', 'no such executor instance for this account; register it again');
    }
    return row;
  }

  get(id: string): InstanceRow | undefined {
    return this.ctx.db.prepare('SELECT * FROM sr_instances WHERE id = ?').get(id) as InstanceRow | undefined;
  }

  list(filter: { tenant_id?: string; operator_id?: string } = {}): InstanceRow[] {
    return this.ctx.db
      .prepare('SELECT * FROM sr_instances WHERE (? IS NULL OR tenant_id = ?) AND (? IS NULL OR operator_id = ?) ORDER BY seq')
      .all(filter.tenant_id ?? null, filter.tenant_id ?? null, filter.operator_id ?? null, filter.operator_id ?? null) as InstanceRow[];
  }

  /** Live instances of a tenant, least recently claimed first (the stagger order). */
  liveInTenant(tenantId: string): InstanceRow[] {
    return this.ctx.db
      .prepare('SELECT * FROM sr_instances WHERE tenant_id = ? AND deregistered_at IS NULL AND expires_at > ? ORDER BY COALESCE(last_claim_at, 0), seq')
      .all(tenantId, this.ctx.now()) as InstanceRow[];
  }

  markClaimed(id: string): void {
    this.ctx.db.prepare('UPDATE sr_instances SET last_claim_at = ? WHERE id = ?').run(this.ctx.now(), id);
  }

  status(row: InstanceRow): InstanceStatus {
    if (row.deregistered_at !== null) return 'deregistered';
    return row.expires_at > this.ctx.now() ? 'live' : 'lapsed';
  }

  capabilityKeys(row: InstanceRow): string[] {
    return parseJson<string[]>(row.capability_keys, []);
  }

  toWire(row: InstanceRow): ExecutorInstance & { relayId: string | null } {
    return {
      id: row.id,
      instanceKey: row.instance_key,
      laneId: row.lane_id,
      relayId: row.relay_id,
      runtimeKind: row.runtime_kind,
      activationMode: row.activation_mode,
      connectorId: row.connector_id,
      claimedCapabilityKeys: this.capabilityKeys(row),
      ttlSeconds: row.ttl_seconds,
      status: this.status(row),
      registeredAt: iso(row.registered_at),
      expiresAt: iso(row.expires_at),
    };
  }
}
