import path from 'node:path';
import type { HostEvent } from '../../../shared/contract';
import type { ConnectorKind, Profile } from '../../../shared/profiles';
import type { Settings, SettingsPatch } from '../../../shared/settings';
import type { Logger } from '../base/ports';
import { RunnerStateStore } from '../runner/runner-state-store';
import { createConfSettingsBackend } from '../settings/conf-settings-backend';
import { createSettingsStore, type PersistentSettingsStore } from '../settings/settings-store';
import { ProfileSettings } from './profile-settings';
import { profileDir } from './profile-store';
import type { RunnerSession } from './session';
import type { OpenProfile } from './session-registry';

/** What every kind of session gets: the profile, its folder, its settings and state, its log. */
export interface SessionContext {
  profile: Profile;
  dir: string;
  settings: ProfileSettings;
  state: RunnerStateStore;
  log: Logger;
}

/** One factory per connector kind: the seam a Sechroom session plugs into. */
export type SessionFactories = Partial<Record<ConnectorKind, (context: SessionContext) => RunnerSession>>;

export interface OpenProfileOptions {
  dataDir: string;
  hostname: string;
  hostSettings: PersistentSettingsStore;
  log: Logger;
  factories: SessionFactories;
  emit(event: HostEvent): void;
  /** The settings view a `settings:changed` event carries. */
  settingsView(profile: string, settings: ProfileSettings): Extract<HostEvent, { event: 'settings:changed' }>['payload'];
  /** Env and flag overrides of this profile's own settings (headless `--profile`), if any. */
  overridesFor(profile: string): SettingsPatch | undefined;
  /** Any profile's settings changed (the usage accounts, the machine cap look again). */
  onSettings(profile: string, settings: Settings): void;
}

/** Opens a profile: its settings (seeded with `initial` when new), its state file, and the session of its kind. */
export async function openProfile(options: OpenProfileOptions, profile: Profile, initial?: Record<string, unknown>): Promise<OpenProfile> {
  const factory = options.factories[profile.connector];
  if (!factory) throw new Error(`This build cannot run ${profile.connector} profiles ("${profile.id}").`);
  const dir = profileDir(options.dataDir, profile.id);
  const log = options.log.child(`profile:${profile.id}`);
  const overrides = options.overridesFor(profile.id);
  const own = createSettingsStore({
    backend: createConfSettingsBackend({ dir }),
    hostname: options.hostname,
    ...(overrides ? { overrides } : {}),
    onWarning: (message) => log.warn(message),
  });
  if (initial) {
    const seeded = own.update(initial);
    if (!seeded.ok) throw new Error(seeded.error.message);
  }
  const settings = new ProfileSettings(options.hostSettings, own);
  const state = new RunnerStateStore(path.join(dir, 'runner-state.json'));
  const loaded = await state.load();
  if (loaded.warning) log.warn(loaded.warning);
  const session = factory({ profile, dir, settings, state, log });
  const off = settings.onChange((effective) => {
    options.onSettings(profile.id, effective);
    session.reconfigure();
    options.emit({ event: 'settings:changed', payload: options.settingsView(profile.id, settings) });
  });
  return { session, settings, close: off };
}
