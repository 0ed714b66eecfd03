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

/**
 * The headless host's overrides by profile: env and flags (per-profile keys for the main
 * profile, the rest for the host) and the profiles file's settings (flags win), with the
 * source each settings view names.
 */
export class ProfileOverrides {
  readonly host: SettingsPatch;
  private readonly main: SettingsPatch;
  private readonly listed: Map<string, SettingsPatch>;

  constructor(
    private readonly mainProfile: string,
    flags: SettingsPatch,
    private readonly flagSources: Partial<Record<SettingKey, string>>,
    listed: readonly { id: string; overrides: SettingsPatch }[],
  ) {
    const host: Record<string, unknown> = {};
    const main: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(flags)) (isProfileSetting(key as SettingKey) ? main : host)[key] = value;
    this.host = host as SettingsPatch;
    this.main = main as SettingsPatch;
    this.listed = new Map(listed.map((p) => [p.id, p.overrides]));
  }

  /** A profile's own overrides, or undefined when it has none. */
  for(id: string): SettingsPatch | undefined {
    const fromFile = this.listed.get(id);
    const fromFlags = id === this.mainProfile ? this.main : undefined;
    return fromFile || fromFlags ? { ...fromFile, ...fromFlags } : undefined;
  }

  /** Where each overridden setting of a profile came from. */
  sourcesFor(id: string): Partial<Record<SettingKey, string>> {
    const fromFile = Object.fromEntries(Object.keys(this.listed.get(id) ?? {}).map((k) => [k, 'profiles file']));
    const fromFlags = Object.entries(this.flagSources).filter(([key]) => id === this.mainProfile || !isProfileSetting(key as SettingKey));
    return { ...fromFile, ...Object.fromEntries(fromFlags) };
  }
}
