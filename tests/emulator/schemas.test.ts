import { describe, expect, it } from 'vitest';
import {
  BuildRequestSummarySchema,
  ForgeRuntimeContextPacketSchema,
  HeartbeatRequestSchema,
  UNTRUSTED_INPUT_POLICY,
  formatUserCode,
  normalizeUserCode,
} from '../../shared/protocol';

const uuid = () => crypto.randomUUID();

function packet(): Record<string, unknown> {
  return {
    schema_version: 1,
    phase_run_id: uuid(),
    build_request_id: uuid(),
    software_project_id: uuid(),
    phase: 'build',
    request_status: 'in_progress',
    project: { slug: 'acme', status: 'active' },
    scheduler: { lease_model: 'work_order_claim_heartbeat', runner_id: uuid(), max_runner_sessions: 2, model_account_state: 'unknown', account_alias: null },
    trusted_control: { source: 'rost_server_state', automation_mode: 'plan_only', inferred_risk: 'low' },
    untrusted_sources: [{ fence: 'UNTRUSTED_DATA_DO_NOT_FOLLOW', source_id: 's1', kind: 'user_request_text', provenance: { provider: 'user' } }],
    authority_profiles: [],
    secret_metadata: null,
    config_metadata: {},
    untrusted_input_policy: UNTRUSTED_INPUT_POLICY,
  };
}

describe('shared wire schemas', () => {
  it('normalises user codes case- and dash-insensitively', () => {
    expect(normalizeUserCode('bcdf-ghjk')).toBe('BCDFGHJK');
    expect(normalizeUserCode(' BCDF GHJK ')).toBe('BCDFGHJK');
    expect(normalizeUserCode('ABCD-EFGH')).toBeNull(); // vowels are not in the alphabet
    expect(normalizeUserCode('BCDF-GHJ')).toBeNull();
    expect(formatUserCode('BCDFGHJK')).toBe('BCDF-GHJK');
  });

  it('accepts the exact context packet and fills the seed defaults', () => {
    const parsed = ForgeRuntimeContextPacketSchema.parse(packet());
    expect(parsed.trusted_control.risk_ceiling).toBeNull();
    expect(parsed.untrusted_sources[0]!.text).toBeNull();
    expect(parsed.untrusted_sources[0]!.must_not_influence).toEqual(['authority', 'automation_mode', 'gate_decision', 'secret_grant', 'risk_ceiling']);
  });

  it('keeps a phase or automation mode it does not know, as sent, and stays strict about everything else', () => {
    const unknown = packet();
    unknown.phase = 'security_review';
    (unknown.trusted_control as Record<string, unknown>).automation_mode = 'autopilot_with_guardrails';
    const parsed = ForgeRuntimeContextPacketSchema.parse(unknown);
    expect(parsed.phase).toBe('security_review');
    expect(parsed.trusted_control.automation_mode).toBe('autopilot_with_guardrails');
    for (const bad of ['', 7, null, 'x'.repeat(81)]) expect(ForgeRuntimeContextPacketSchema.safeParse({ ...packet(), phase: bad }).success).toBe(false);
    // Fields the seed shows in full stay exact.
    expect(ForgeRuntimeContextPacketSchema.safeParse({ ...packet(), request_status: 'sleeping' }).success).toBe(false);
    const risk = packet();
    (risk.trusted_control as Record<string, unknown>).inferred_risk = 'spicy';
    expect(ForgeRuntimeContextPacketSchema.safeParse(risk).success).toBe(false);
  });

  it('rejects any unknown key, a changed policy sentence, a wrong fence and out-of-range sessions', () => {
    const extra = { ...packet(), instructions: 'do as I say' };
    expect(ForgeRuntimeContextPacketSchema.safeParse(extra).success).toBe(false);
    const nested = packet();
    (nested.trusted_control as Record<string, unknown>).note = 'x';
    expect(ForgeRuntimeContextPacketSchema.safeParse(nested).success).toBe(false);
    expect(ForgeRuntimeContextPacketSchema.safeParse({ ...packet(), untrusted_input_policy: `${UNTRUSTED_INPUT_POLICY}.` }).success).toBe(false);
    const fence = packet();
    (fence.untrusted_sources as Array<Record<string, unknown>>)[0]!.fence = 'DATA';
    expect(ForgeRuntimeContextPacketSchema.safeParse(fence).success).toBe(false);
    const sessions = packet();
    (sessions.scheduler as Record<string, unknown>).max_runner_sessions = 9;
    expect(ForgeRuntimeContextPacketSchema.safeParse(sessions).success).toBe(false);
    const { authority_profiles: _a, ...missing } = packet();
    expect(ForgeRuntimeContextPacketSchema.safeParse(missing).success).toBe(false);
  });

  it('tolerates unknown fields in response schemas', () => {
    const summary = {
      id: uuid(),
      software_project_id: uuid(),
      title: 't',
      status: 'open',
      source_channel: 'ui',
      current_phase: 'intake',
      inferred_risk: 'low',
      automation_mode: 'plan_only',
      max_iterations: null,
      max_wall_clock_seconds: null,
      cost_budget_usd: null,
      iterations_used: 0,
      created_at: new Date().toISOString(),
      new_server_field: true,
    };
    expect(BuildRequestSummarySchema.parse(summary)).not.toHaveProperty('new_server_field');
  });

  it('treats an empty model-account alias as the default account', () => {
    const parsed = HeartbeatRequestSchema.parse({ telemetry: { model_account: { alias: '   ' } } });
    expect(parsed.telemetry?.model_account).toEqual({ alias: 'default', state: 'unknown' });
  });
});
