import { cp, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_PROFILE_ID, PROFILE_SETTING_KEYS } from '../../../shared/profiles';
import { parseSetting, type SettingsPatch } from '../../../shared/settings';
import type { Logger } from '../base/ports';
import { createConfSettingsBackend } from '../settings/conf-settings-backend';
import { createSettingsStore } from '../settings/settings-store';
import { PROFILES_DIR, profileDir, type ProfileStore } from './profile-store';

/** What a single-runner data folder holds for its runner (the turn history, usage and logs stay host-wide). */
const LEGACY_FILES = ['runner-state.json', 'outbox', 'running'] as const;

export interface MigrationOptions {
  dataDir: string;
  store: ProfileStore;
  /** The stored host settings document as it is (the per-profile keys are taken from it). */
  legacySettings: unknown;
  hostname: string;
  log: Logger;
}

/**
 * Makes the `default` profile on first start. A single-runner data folder's identity,
 * pause and resume ids (runner-state.json), outbox and running journal are copied into
 * `profiles/default/`, and its per-profile settings into that profile's settings file;
 * the secret keeps its secret-store account. The copy is made in a staging folder and
 * renamed into place, and `profiles.json` written last is the commit: a crash on the way
 * leaves the old layout, and the next start does it again. The old files stay where they
 * were, untouched: a downgraded build finds everything as it left it.
 */
export async function migrateToProfiles(options: MigrationOptions): Promise<{ created: boolean; migrated: string[] }> {
  if ((await options.store.load()) !== null) return { created: false, migrated: [] };
  const { dataDir } = options;
  const target = profileDir(dataDir, DEFAULT_PROFILE_ID);
  const staging = path.join(dataDir, PROFILES_DIR, `.${DEFAULT_PROFILE_ID}.migrating`);
  // What an interrupted earlier try left (no profiles.json means nothing after it was used).
  await rm(staging, { recursive: true, force: true });
  await rm(target, { recursive: true, force: true });
  await mkdir(staging, { recursive: true, mode: 0o700 });
  const migrated: string[] = [];
  for (const name of LEGACY_FILES) {
    const from = path.join(dataDir, name);
    if (!(await exists(from))) continue;
    await cp(from, path.join(staging, name), { recursive: true, errorOnExist: true, force: false, preserveTimestamps: true });
    migrated.push(name);
  }
  const settings = profileSettingsOf(options.legacySettings);
  if (Object.keys(settings).length > 0) {
    const store = createSettingsStore({ backend: createConfSettingsBackend({ dir: staging }), hostname: options.hostname });
    const saved = store.update(settings);
    if (!saved.ok) throw new Error(`The settings of the default profile could not be written: ${saved.error.message}`);
    migrated.push('settings');
  }
  await rename(staging, target);
  await options.store.save([{ id: DEFAULT_PROFILE_ID, name: 'Default', connector: 'rost' }]);
  if (migrated.length > 0) options.log.info('this data folder now holds profiles: the runner became the default profile', { migrated: migrated.join(', ') });
  return { created: true, migrated };
}

/** The valid per-profile settings stored in a host settings document (`{ schemaVersion, settings }`). */
function profileSettingsOf(doc: unknown): SettingsPatch {
  const record = doc && typeof doc === 'object' ? (doc as Record<string, unknown>) : {};
  const stored = record.settings && typeof record.settings === 'object' ? (record.settings as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const key of PROFILE_SETTING_KEYS) {
    if (stored[key] === undefined) continue;
    const parsed = parseSetting(key, stored[key]);
    if (parsed.ok) out[key] = stored[key];
  }
  return out as SettingsPatch;
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
