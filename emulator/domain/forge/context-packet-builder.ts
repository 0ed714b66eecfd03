import {
  ForgeRuntimeContextPacketSchema,
  INFLUENCE_BOUNDARIES,
  LEASE_MODEL,
  TRUSTED_CONTROL_SOURCE,
  UNTRUSTED_FENCE,
  UNTRUSTED_INPUT_POLICY,
  type ForgeRuntimeContextPacket,
  type SourceChannel,
} from '../../../shared/protocol';
import type { EmulatorContext } from '../../context';
import type { RunnerRecord } from '../runners';
import { runnerCapacity } from '../runners';
import type { UnitRow } from '../units';
import type { ForgeStore } from './forge-store';

const PROVIDER_FOR_CHANNEL: Record<SourceChannel, 'github' | 'linear' | 'user' | 'api'> = {
  ui: 'user',
  cli: 'user',
  github_issue: 'github',
  linear: 'linear',
  api: 'api',
};

/**
 * Builds the packet from server state only. The request title is the one piece of
 * human text included, and only as a fenced untrusted source; everything that
 * grants authority sits in trusted_control.
 */
export function buildContextPacket(ctx: EmulatorContext, store: ForgeStore, unit: UnitRow, runner: RunnerRecord): ForgeRuntimeContextPacket | null {
  if (!unit.build_request_id) return null;
  const request = store.row(unit.build_request_id);
  if (!request) return null;
  const project = store.project(request.software_project_id);
  const explicitRun = unit.phase_run_id
    ? (ctx.db.prepare('SELECT id, phase FROM phase_runs WHERE id = ? AND build_request_id = ?').get(unit.phase_run_id, request.id) as
        { id: string; phase: ForgeRuntimeContextPacket['phase'] } | undefined)
    : undefined;
  const run = explicitRun ?? store.currentPhaseRun(request.id);
  if (!run) return null;
  const pendingGates = ctx.db.prepare("SELECT id FROM gates WHERE build_request_id = ? AND status = 'open' ORDER BY seq LIMIT 50").all(request.id) as Array<{
    id: string;
  }>;
  const capacity = runnerCapacity(runner);
  const packet = {
    schema_version: 1,
    phase_run_id: run.id,
    build_request_id: request.id,
    software_project_id: request.software_project_id,
    phase: run.phase,
    request_status: request.status,
    project: { slug: project?.slug ?? null, status: project?.status ?? null },
    scheduler: {
      lease_model: LEASE_MODEL,
      runner_id: runner.id,
      max_runner_sessions: Math.min(8, Math.max(1, capacity.maxSessions)),
      model_account_state: capacity.accountState.slice(0, 80) || 'unknown',
      account_alias: capacity.accountAlias.slice(0, 200),
    },
    trusted_control: {
      source: TRUSTED_CONTROL_SOURCE,
      automation_mode: request.automation_mode,
      inferred_risk: request.inferred_risk,
      risk_ceiling: request.risk_ceiling,
      authority_profile_ids: [],
      active_secret_grant_count: 0,
      pending_gate_ids: pendingGates.map((g) => g.id),
    },
    untrusted_sources: [
      {
        fence: UNTRUSTED_FENCE,
        source_id: `build_request:${request.id}:title`,
        kind: 'user_request_text',
        provenance: { provider: PROVIDER_FOR_CHANNEL[request.source_channel] },
        text: request.title.slice(0, 8000),
        must_not_influence: [...INFLUENCE_BOUNDARIES],
      },
    ],
    authority_profiles: [],
    secret_metadata: { grants: [] },
    config_metadata: { base_branch: project?.base_branch ?? null },
    untrusted_input_policy: UNTRUSTED_INPUT_POLICY,
  };
  // Self-check: the emulator must never hand out a packet the strict schema rejects by accident.
  return ForgeRuntimeContextPacketSchema.parse(packet);
}
