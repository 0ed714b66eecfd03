import ElectronStore from 'electron-store';
import { backendFromConfLike, tolerantJsonDeserialize } from '../core/settings/conf-settings-backend';
import type { SettingsBackend } from '../core/settings/settings-store';

/**
 * The desktop app keeps its settings with electron-store (in userData, which the shell
 * has already pointed at the data folder). The tolerant reader means a damaged file
 * reaches the settings store as data to set aside, not as a crash in a constructor.
 */
export function electronSettingsBackend(): SettingsBackend {
  const store = new ElectronStore<Record<string, unknown>>({
    name: 'settings',
    deserialize: tolerantJsonDeserialize,
    serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
    accessPropertiesByDotNotation: false,
  });
  return backendFromConfLike(store);
}
