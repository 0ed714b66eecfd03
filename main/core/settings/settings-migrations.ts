// Versioned migrations of the persisted settings document `{ schemaVersion, settings }`.
import { errorText } from '../../../shared/errors';
//
// Each migration is a pure function from the settings object of version N to version
// N+1; they run in order, never skip, and never see the envelope. To change the
// stored shape: add a function here, bump nothing else (the current version is the
// length of the list plus one), and add a test with a file of the old version.
//
// About v1 (honestly): no released build wrote v1. It is the shape of the first
// development builds of this module, whose field names followed the `rost runner
// serve` state file and the Forge context packet (`name`, `account_alias`) instead
// of the camelCase names the UI contract uses. v1→v2 is kept because such files
// exist on developer machines and because it exercises the machinery with a real
// rename before the first release needs one.

import { plainHttpProblem } from '../../../shared/transport-security';

export type StoredSettings = Record<string, unknown>;
export type SettingsMigration = (settings: StoredSettings) => StoredSettings;

/** v1 → v2: `name` → `runnerName`, `account_alias` → `modelAccountAlias`. */
function renameSeedStyleFields(settings: StoredSettings): StoredSettings {
  const { name, account_alias: accountAlias, ...rest } = settings;
  const out: StoredSettings = { ...rest };
  // A v2 field already present wins: a hand-edited file may carry both.
  if (name !== undefined && out.runnerName === undefined) out.runnerName = name;
  if (accountAlias !== undefined && out.modelAccountAlias === undefined) out.modelAccountAlias = accountAlias;
  return out;
}

/**
 * v2 → v3: adds `runWork` ("Run work on this machine"). Stored settings are sparse, so a v2
 * file, which could not turn work off, carries no value and the default (on) applies: the
 * step writes nothing. The version moves so that a v2 build given a v3 file says it was
 * written by a newer version instead of calling `runWork` unknown and repairing the file.
 * A stray non-boolean `runWork` in an old hand-edited file is dropped rather than repaired.
 */
function addRunWork(settings: StoredSettings): StoredSettings {
  const { runWork, ...rest } = settings;
  return typeof runWork === 'boolean' ? { ...rest, runWork } : rest;
}

/**
 * v3 → v4: the isolation settings (`runtimeEnvAllow`, `useOwnAgentConfig`) were added and
 * `controlPlaneUrl` accepts http:// only for loopback. Nothing stored is renamed; a stored
 * plain-http URL to another host is dropped (the default is used until the operator enters
 * an https:// one), so the runner never sends its secret over plain HTTP after the update,
 * and the rest of the file stays valid instead of being set aside whole. The version moves,
 * so an older build meeting this file says it was written by a newer one instead of
 * calling the new fields unknown.
 */
function dropPlainHttpControlPlane(settings: StoredSettings): StoredSettings {
  const url = settings.controlPlaneUrl;
  if (typeof url !== 'string' || plainHttpProblem(url.trim()) === null) return settings;
  const rest = { ...settings };
  delete rest.controlPlaneUrl;
  return rest;
}

/**
 * v4 → v5: the model account state is measured now (usage accounts), and a stored value
 * overrides the measurement. Placeholders operators typed because the field was free
 * text ("ok", "available", "unknown", empty) are dropped so the real state is reported;
 * anything else stays as the operator's explicit override.
 */
function dropPlaceholderAccountState(settings: StoredSettings): StoredSettings {
  const { modelAccountState: state, ...rest } = settings;
  if (typeof state === 'string' && /^\s*(ok|okay|available|unknown|)\s*$/i.test(state)) return rest;
  return state === undefined ? rest : { ...rest, modelAccountState: state };
}

/** Index i migrates version i+1 to version i+2. */
export const SETTINGS_MIGRATIONS: readonly SettingsMigration[] = [renameSeedStyleFields, addRunWork, dropPlainHttpControlPlane, dropPlaceholderAccountState];

export const CURRENT_SETTINGS_VERSION = SETTINGS_MIGRATIONS.length + 1;

export type MigrationResult = { ok: true; settings: StoredSettings; fromVersion: number } | { ok: false; reason: string; fromVersion: number | null };

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Reads an envelope of any known version and returns the settings at the current version. */
export function migrateSettingsDocument(doc: unknown, migrations: readonly SettingsMigration[] = SETTINGS_MIGRATIONS): MigrationResult {
  const current = migrations.length + 1;
  if (!isRecord(doc)) return { ok: false, reason: 'the file does not hold a JSON object', fromVersion: null };
  const version = doc.schemaVersion;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return { ok: false, reason: 'schemaVersion is missing or not a positive integer', fromVersion: null };
  }
  if (version > current) {
    return { ok: false, reason: `it was written by a newer version (schema ${version}, this build reads up to ${current})`, fromVersion: version };
  }
  if (!isRecord(doc.settings)) return { ok: false, reason: 'settings is missing or not an object', fromVersion: version };
  let settings: StoredSettings = { ...doc.settings };
  for (let v = version; v < current; v++) {
    const step = migrations[v - 1];
    if (!step) return { ok: false, reason: `no migration from schema ${v}`, fromVersion: version };
    try {
      settings = step(settings);
    } catch (error) {
      const why = errorText(error);
      return { ok: false, reason: `migration from schema ${v} failed: ${why}`, fromVersion: version };
    }
  }
  return { ok: true, settings, fromVersion: version };
}
