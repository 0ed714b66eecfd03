import { SECHROOM_SCHEMA_SQL, SECHROOM_TABLES } from '../sechroom/db-schema';

/** Tables of the emulator. JSON columns hold text; every secret column holds a sha256 hash only. */
export const SCHEMA_VERSION = 1;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS tenants (id TEXT PRIMARY KEY, name TEXT NOT NULL, created_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS operators (
  id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL REFERENCES tenants(id), name TEXT NOT NULL,
  role TEXT NOT NULL, created_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS sessions (
  id_hash TEXT PRIMARY KEY, operator_id TEXT NOT NULL REFERENCES operators(id), csrf TEXT NOT NULL,
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS pairings (
  id TEXT PRIMARY KEY, user_code TEXT NOT NULL, status TEXT NOT NULL, name TEXT NOT NULL,
  platform TEXT NOT NULL, runner_version TEXT, hostname TEXT, source_ip TEXT,
  tenant_id TEXT, decided_by TEXT, runner_id TEXT, interval_s INTEGER NOT NULL,
  last_poll_at INTEGER, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS pairings_code ON pairings(user_code);

CREATE TABLE IF NOT EXISTS runners (
  id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, name TEXT NOT NULL, platform TEXT,
  hostname TEXT, runner_version TEXT, secret_hash TEXT NOT NULL UNIQUE, paused INTEGER NOT NULL DEFAULT 0,
  capabilities TEXT, telemetry TEXT, last_heartbeat_at INTEGER, created_at INTEGER NOT NULL,
  revoked_at INTEGER);

CREATE TABLE IF NOT EXISTS capacity_observations (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, runner_id TEXT NOT NULL, tenant_id TEXT NOT NULL,
  observed_at INTEGER NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS capacity_runner ON capacity_observations(runner_id, seq);

CREATE TABLE IF NOT EXISTS oauth_device_codes (
  id TEXT PRIMARY KEY, device_code_hash TEXT NOT NULL UNIQUE, user_code TEXT NOT NULL,
  client_id TEXT NOT NULL, scope TEXT, status TEXT NOT NULL, operator_id TEXT,
  interval_s INTEGER NOT NULL, last_poll_at INTEGER, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS oauth_tokens (
  token_hash TEXT PRIMARY KEY, grant_id TEXT NOT NULL, kind TEXT NOT NULL, operator_id TEXT NOT NULL,
  client_id TEXT NOT NULL, scope TEXT, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  revoked_at INTEGER);
CREATE INDEX IF NOT EXISTS oauth_tokens_grant ON oauth_tokens(grant_id);

CREATE TABLE IF NOT EXISTS projects (
  id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, name TEXT NOT NULL, slug TEXT, status TEXT NOT NULL,
  base_branch TEXT, created_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS build_requests (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, tenant_id TEXT NOT NULL, software_project_id TEXT NOT NULL,
  title TEXT NOT NULL, status TEXT NOT NULL, source_channel TEXT NOT NULL, current_phase TEXT NOT NULL,
  inferred_risk TEXT NOT NULL, risk_ceiling TEXT, automation_mode TEXT NOT NULL,
  max_iterations INTEGER, max_wall_clock_seconds INTEGER, cost_budget_usd TEXT,
  iterations_used INTEGER NOT NULL DEFAULT 0, cost_used_usd REAL NOT NULL DEFAULT 0,
  status_reason TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS phase_runs (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, build_request_id TEXT NOT NULL, phase TEXT NOT NULL,
  status TEXT NOT NULL, attempt INTEGER NOT NULL, started_at TEXT, completed_at TEXT, created_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS gates (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, build_request_id TEXT NOT NULL, phase_run_id TEXT,
  kind TEXT NOT NULL, title TEXT NOT NULL, status TEXT NOT NULL, decided_at TEXT, created_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS plan_versions (
  id TEXT PRIMARY KEY, build_request_id TEXT NOT NULL, version_no INTEGER NOT NULL, status TEXT NOT NULL,
  summary TEXT, confidence_score INTEGER, clarifying_questions TEXT NOT NULL, clarification_answers TEXT NOT NULL,
  created_by_seat_id TEXT, created_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS tasks (
  id TEXT PRIMARY KEY, build_request_id TEXT NOT NULL, plan_version_id TEXT, ordinal INTEGER NOT NULL,
  title TEXT NOT NULL, status TEXT NOT NULL, checkpoint_ref TEXT, completed_at TEXT, created_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS changesets (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, build_request_id TEXT NOT NULL, task_id TEXT, title TEXT NOT NULL,
  status TEXT NOT NULL, branch TEXT, pr_url TEXT, additions INTEGER NOT NULL, deletions INTEGER NOT NULL,
  created_at TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS units (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, kind TEXT NOT NULL, tenant_id TEXT NOT NULL, status TEXT NOT NULL,
  runner_id TEXT, last_runner_id TEXT, target_runner_id TEXT, build_request_id TEXT, phase_run_id TEXT,
  task_id TEXT, brain TEXT, prompt TEXT NOT NULL, fields TEXT NOT NULL, context_packet TEXT,
  packet_mode TEXT NOT NULL, timeout_ms INTEGER NOT NULL, lease_heartbeat_ms INTEGER NOT NULL,
  attempt INTEGER NOT NULL DEFAULT 0, max_attempts INTEGER NOT NULL, lease_expires_at INTEGER,
  claimed_at INTEGER, started_at INTEGER, finished_at INTEGER, cancel_requested_at INTEGER,
  status_reason TEXT, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS units_status ON units(status, seq);

CREATE TABLE IF NOT EXISTS mcp_tokens (
  token_hash TEXT PRIMARY KEY, unit_id TEXT NOT NULL, attempt INTEGER NOT NULL, expires_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS results (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, unit_id TEXT NOT NULL, runner_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL, status TEXT NOT NULL, summary TEXT NOT NULL, log_ref TEXT, runtime TEXT,
  usage TEXT, late INTEGER NOT NULL, received_at INTEGER NOT NULL, UNIQUE (unit_id, idempotency_key));

CREATE TABLE IF NOT EXISTS lease_heartbeats (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, unit_id TEXT NOT NULL, runner_id TEXT NOT NULL,
  answered TEXT NOT NULL, body TEXT, at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS mcp_calls (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, unit_id TEXT NOT NULL, runner_id TEXT, method TEXT NOT NULL,
  tool TEXT, arguments TEXT, at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS confirmations (
  id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, requested_by TEXT NOT NULL, command_id TEXT NOT NULL,
  input TEXT NOT NULL, status TEXT NOT NULL, output TEXT, error TEXT, decided_by TEXT, decided_at INTEGER,
  created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
${SECHROOM_SCHEMA_SQL}`;

/** Tables wiped by a reset (all of them but meta's schema marker). */
export const DATA_TABLES = [
  ...SECHROOM_TABLES,
  'events',
  'confirmations',
  'mcp_calls',
  'lease_heartbeats',
  'results',
  'mcp_tokens',
  'units',
  'changesets',
  'tasks',
  'plan_versions',
  'gates',
  'phase_runs',
  'build_requests',
  'projects',
  'oauth_tokens',
  'oauth_device_codes',
  'capacity_observations',
  'runners',
  'pairings',
  'sessions',
  'operators',
  'tenants',
] as const;
