/**
 * Work Layer tables (prefix `sr_`), created beside the Rost ones in the same SQLite file.
 * Times are ms since epoch; JSON columns hold text; no secret is stored (claim tokens are
 * derived from a per-database key, bearers live hashed in `oauth_tokens`).
 */
export const SECHROOM_SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS sr_briefs (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, tenant_id TEXT NOT NULL, title TEXT NOT NULL, status TEXT NOT NULL,
  workspace_id TEXT NOT NULL, reason_code TEXT, reason TEXT, source TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS sr_decompositions (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, tenant_id TEXT NOT NULL, brief_id TEXT NOT NULL, title TEXT NOT NULL,
  status TEXT NOT NULL, revision_of TEXT, revision_notes TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS sr_bundles (
  tenant_id TEXT NOT NULL, slug TEXT NOT NULL, version TEXT NOT NULL, components TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, slug, version));

CREATE TABLE IF NOT EXISTS sr_tasks (
  memory_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, tenant_id TEXT NOT NULL, decomposition_id TEXT NOT NULL,
  title TEXT NOT NULL, objective TEXT NOT NULL, acceptance TEXT NOT NULL, boundaries TEXT NOT NULL, closeout TEXT NOT NULL,
  lane TEXT, capability_keys TEXT NOT NULL, tags TEXT NOT NULL, pack_slug TEXT, pack_version TEXT, status TEXT NOT NULL,
  generation_id TEXT, generation_no INTEGER NOT NULL DEFAULT 0, offered_at INTEGER, verdict TEXT, status_reason TEXT,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sr_tasks_status ON sr_tasks(tenant_id, status, seq);

CREATE TABLE IF NOT EXISTS sr_residues (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, tenant_id TEXT NOT NULL, memory_id TEXT NOT NULL, kind TEXT NOT NULL,
  title TEXT, body TEXT, created_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sr_no_residue (
  tenant_id TEXT NOT NULL, decomposition_id TEXT NOT NULL, memory_id TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (decomposition_id, memory_id));

CREATE TABLE IF NOT EXISTS sr_generations (
  id TEXT PRIMARY KEY, memory_id TEXT NOT NULL, no INTEGER NOT NULL, created_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS sr_instances (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, tenant_id TEXT NOT NULL, operator_id TEXT NOT NULL, instance_key TEXT NOT NULL,
  lane_id TEXT NOT NULL, relay_id TEXT, runtime_kind TEXT, activation_mode TEXT, delivery_subscription_id TEXT,
  connector_id TEXT, capability_keys TEXT NOT NULL, tool_set_ref TEXT, ttl_seconds INTEGER NOT NULL,
  expires_at INTEGER NOT NULL, registered_at INTEGER NOT NULL, refreshed_at INTEGER NOT NULL, last_claim_at INTEGER,
  deregistered_at INTEGER, surface TEXT, UNIQUE (tenant_id, instance_key));

CREATE TABLE IF NOT EXISTS sr_leases (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, tenant_id TEXT NOT NULL, memory_id TEXT NOT NULL,
  generation_id TEXT NOT NULL UNIQUE, instance_id TEXT NOT NULL, workspace_id TEXT NOT NULL, status TEXT NOT NULL,
  token_version INTEGER NOT NULL DEFAULT 1, claimed_via TEXT NOT NULL, expires_at INTEGER NOT NULL,
  last_heartbeat_at INTEGER, heartbeats INTEGER NOT NULL DEFAULT 0, cancel_requested_at INTEGER, cancel_reason TEXT,
  ended_at INTEGER, end_reason TEXT, created_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sr_leases_status ON sr_leases(status, expires_at);

CREATE TABLE IF NOT EXISTS sr_claim_keys (
  instance_id TEXT NOT NULL, idempotency_key TEXT NOT NULL, lease_id TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (instance_id, idempotency_key));

CREATE TABLE IF NOT EXISTS sr_completions (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL, tenant_id TEXT NOT NULL, lease_id TEXT NOT NULL UNIQUE,
  memory_id TEXT NOT NULL, instance_id TEXT NOT NULL, verdict TEXT NOT NULL, text TEXT NOT NULL, source TEXT NOT NULL,
  title TEXT NOT NULL, received_at INTEGER NOT NULL);

CREATE TABLE IF NOT EXISTS sr_telemetry (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, tenant_id TEXT NOT NULL, decomposition_id TEXT NOT NULL, task_id TEXT NOT NULL,
  kind TEXT NOT NULL, body TEXT NOT NULL, received_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS sr_telemetry_run ON sr_telemetry(decomposition_id, seq);
`;

export const SECHROOM_TABLES = [
  'sr_telemetry',
  'sr_completions',
  'sr_claim_keys',
  'sr_leases',
  'sr_instances',
  'sr_generations',
  'sr_tasks',
  'sr_bundles',
  'sr_decompositions',
  'sr_briefs',
] as const;
