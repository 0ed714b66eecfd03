import { isProfileSetting, PROFILE_SETTING_KEYS } from '../../../shared/profiles';
import { parseSettingsPatch, type Settings, type SettingKey, type SettingsPatch } from '../../../shared/settings';
import type { PersistentSettingsStore, SettingsUpdateResult } from '../settings/settings-store';

/**
 * A profile's effective settings: its own values of the per-profile keys (its own file,
 * `profiles/<id>/settings.json`) over the host-wide settings every profile shares. An
 * update is checked whole, then each key goes to where it lives.
 */
export class ProfileSettings implements PersistentSettingsStore {
  constructor(
    private readonly host: PersistentSettingsStore,
    private readonly own: PersistentSettingsStore,
  ) {}

  get warnings(): readonly string[] {
    return [...this.host.warnings, ...this.own.warnings];
  }

  get(): Settings {
    const own = this.own.get();
    const merged = { ...this.host.get() } as Record<SettingKey, unknown>;
    for (const key of PROFILE_SETTING_KEYS) merged[key] = own[key];
    return merged as unknown as Settings;
  }

  overriddenKeys(): readonly SettingKey[] {
    return [...this.host.overriddenKeys().filter((k) => !isProfileSetting(k)), ...this.own.overriddenKeys().filter((k) => isProfileSetting(k))];
  }

  update(patch: unknown): SettingsUpdateResult {
    const parsed = parseSettingsPatch(patch);
    if (!parsed.ok) return { ok: false, error: { code: 'invalid_settings', ...parsed.error } };
    const raw = patch as Record<string, unknown>;
    const hostPart: Record<string, unknown> = {};
    const ownPart: Record<string, unknown> = {};
    for (const key of Object.keys(parsed.value) as SettingKey[]) (isProfileSetting(key) ? ownPart : hostPart)[key] = raw[key];
    for (const [part, store] of [
      [ownPart, this.own],
      [hostPart, this.host],
    ] as const) {
      if (Object.keys(part).length === 0) continue;
      const result = store.update(part);
      if (!result.ok) return result;
    }
    return { ok: true, value: this.get() };
  }

  /** Either side changed (a host-wide change reaches every profile). */
  onChange(cb: (settings: Settings) => void): () => void {
    const offs = [this.host.onChange(() => cb(this.get())), this.own.onChange(() => cb(this.get()))];
    return () => offs.forEach((off) => off());
  }
}

/** The per-profile keys of a patch (a headless `--profile`'s flags), the rest being the host's. */
export function splitPatch(patch: SettingsPatch): { profile: SettingsPatch; host: SettingsPatch } {
  const profile: Record<string, unknown> = {};
  const host: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) (isProfileSetting(key as SettingKey) ? profile : host)[key] = value;
  return { profile: profile as SettingsPatch, host: host as SettingsPatch };
}
