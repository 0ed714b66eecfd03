import ElectronStore from 'electron-store';
import { SETTINGS_FILE_MODE, backendFromConfLike, ownerOnlySettingsFile, tolerantJsonDeserialize } from '../core/settings/conf-settings-backend';
import type { SettingsBackend } from '../core/settings/settings-store';

/**
 * The desktop app keeps its settings with electron-store (in userData, which the shell
 * has already pointed at the data folder). The tolerant reader means a damaged file
 * reaches the settings store as data to set aside, not as a crash in a constructor.
 * The file is owner-only (0600), as the headless host's: a file written by an older build
 * with the default 0644 is tightened when opened.
 */
export function electronSettingsBackend(): SettingsBackend {
  const store = new ElectronStore<Record<string, unknown>>({
    name: 'settings',
    deserialize: tolerantJsonDeserialize,
    serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
    accessPropertiesByDotNotation: false,
    configFileMode: SETTINGS_FILE_MODE,
  });
  ownerOnlySettingsFile(store.path);
  return backendFromConfLike(store);
}
