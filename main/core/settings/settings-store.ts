// The settings port and its implementation over a tiny storage backend.
//
// The stored document is `{ schemaVersion, settings }` where `settings` holds only
// the values someone set (defaults are not written, so a later default reaches users
// who never touched the field). Effective settings = defaults ⊕ stored ⊕ overrides;
// overrides (env and flags of the headless host) are never persisted.
//
// A file that cannot be read, parsed, migrated or validated never stops the runner:
// a copy is kept beside it, defaults are used, and a warning says where the copy is.
import { errorText } from '../../../shared/errors';
import {
  type ParseResult,
  type Settings,
  type SettingKey,
  type SettingsPatch,
  SETTING_KEYS,
  defaultSettings,
  parseSetting,
  parseSettingsPatch,
} from '../../../shared/settings';
import { SETTINGS_MIGRATIONS, type SettingsMigration, migrateSettingsDocument } from './settings-migrations';

/** Where the settings document lives. `new ElectronStore()` and `new Conf()` fit via `backendFromConfLike`. */
export interface SettingsBackend {
  /** The stored document, or `undefined` (or `{}`) when nothing was stored yet. May throw when unreadable. */
  read(): unknown;
  write(data: unknown): void;
  /** Copies the stored file aside as it is now and returns the copy's path (undefined: nothing to copy). */
  backup?(): string | undefined;
  /** The file, when the document is one (named in warnings). */
  readonly path?: string;
}

export type SettingsError =
  { code: 'invalid_settings'; message: string; field: SettingKey | null } | { code: 'settings_not_saved'; message: string; field: null };
export type SettingsUpdateResult = { ok: true; value: Settings } | { ok: false; error: SettingsError };

export interface SettingsStore {
  get(): Settings;
  update(patch: unknown): SettingsUpdateResult;
  onChange(cb: (settings: Settings) => void): () => void;
}

export interface PersistentSettingsStore extends SettingsStore {
  /** Problems met while loading (each one line, safe to show). */
  readonly warnings: readonly string[];
  /** Fields whose effective value comes from an env variable or flag, not from the stored file. */
  overriddenKeys(): readonly SettingKey[];
}

export interface SettingsStoreOptions {
  backend: SettingsBackend;
  hostname: string;
  overrides?: SettingsPatch;
  onWarning?: (message: string) => void;
  /** For tests; the real list is `SETTINGS_MIGRATIONS`. */
  migrations?: readonly SettingsMigration[];
}

type Sparse = Partial<Record<SettingKey, unknown>>;

function isEmptyDocument(raw: unknown): boolean {
  return raw === undefined || raw === null || (typeof raw === 'object' && !Array.isArray(raw) && Object.keys(raw).length === 0);
}

function compact(sparse: Sparse): Sparse {
  const out: Sparse = {};
  for (const key of SETTING_KEYS) if (sparse[key] !== undefined) out[key] = sparse[key];
  return out;
}

export function createSettingsStore(options: SettingsStoreOptions): PersistentSettingsStore {
  const { backend, hostname } = options;
  const migrations = options.migrations ?? SETTINGS_MIGRATIONS;
  const currentVersion = migrations.length + 1;
  const defaults = defaultSettings(hostname);
  const warnings: string[] = [];
  const listeners = new Set<(s: Settings) => void>();

  const warn = (message: string): void => {
    warnings.push(message);
    options.onWarning?.(message);
  };
  const keepCopy = (): { path?: string; failed?: string } => {
    if (!backend.backup) return { failed: 'this storage cannot keep copies' };
    try {
      const path = backend.backup();
      return path === undefined ? {} : { path };
    } catch (error) {
      return { failed: errorText(error) };
    }
  };
  const persist = (sparse: Sparse): void => {
    backend.write({ schemaVersion: currentVersion, settings: compact(sparse) });
  };
  const fileName = backend.path ? `Settings file ${backend.path}` : 'Settings file';
  /** Sets the file aside, then rewrites it, saying in one line which file, what was reset, and where the copy is. */
  const repair = (problem: string, sparse: Sparse, reset: string): void => {
    const copy = keepCopy();
    if (copy.failed !== undefined) {
      warn(`${fileName} ${problem}; ${reset} for now, but no copy could be kept (${copy.failed}), so the file was left as it is.`);
      return;
    }
    const where = copy.path ? `a copy of the old file is at ${copy.path}` : 'there was no file to copy';
    warn(`${fileName} ${problem}; ${reset}, and ${where}.`);
    try {
      persist(sparse);
    } catch (error) {
      warn(`Settings could not be rewritten (${errorText(error)}); they will be saved on the next change.`);
    }
  };
  const ALL_RESET = 'every setting in it is back to its default';

  const load = (): Sparse => {
    let raw: unknown;
    try {
      raw = backend.read();
    } catch (error) {
      repair(`could not be read (${errorText(error)})`, {}, ALL_RESET);
      return {};
    }
    if (isEmptyDocument(raw)) return {};
    const migrated = migrateSettingsDocument(raw, migrations);
    if (!migrated.ok) {
      repair(`was not usable: ${migrated.reason}`, {}, ALL_RESET);
      return {};
    }
    const sparse: Sparse = {};
    const invalid: string[] = [];
    for (const [key, value] of Object.entries(migrated.settings)) {
      if (!(SETTING_KEYS as readonly string[]).includes(key)) {
        invalid.push(`${key} (unknown)`);
        continue;
      }
      const parsed: ParseResult<unknown> = parseSetting(key as SettingKey, value);
      if (parsed.ok) sparse[key as SettingKey] = parsed.value;
      else invalid.push(key);
    }
    if (invalid.length > 0) {
      repair(`had settings that are not valid: ${invalid.join(', ')}`, sparse, `${invalid.length === 1 ? 'that one is' : 'those are'} back to the default`);
    } else if (migrated.fromVersion < currentVersion) {
      const copy = keepCopy();
      if (copy.failed !== undefined) {
        warn(`Settings were upgraded from schema ${migrated.fromVersion} in memory only: no copy of the old file could be kept (${copy.failed}).`);
      } else {
        try {
          persist(sparse);
        } catch (error) {
          warn(`Upgraded settings could not be saved (${errorText(error)}); they will be saved on the next change.`);
        }
      }
    }
    return sparse;
  };

  let stored = load();
  const overrides: Sparse = {};
  if (options.overrides) {
    const parsed = parseSettingsPatch(options.overrides);
    if (parsed.ok) Object.assign(overrides, compact(parsed.value));
    else warn(`Ignored overrides: ${parsed.error.message}`);
  }
  const effectiveOf = (sparse: Sparse): Settings => ({ ...defaults, ...compact(sparse), ...overrides }) as Settings;
  let effective = effectiveOf(stored);

  return {
    warnings,
    get: () => ({ ...effective }),
    overriddenKeys: () => SETTING_KEYS.filter((k) => k in overrides),
    onChange(cb) {
      listeners.add(cb);
      return () => {
        listeners.delete(cb);
      };
    },
    update(patch) {
      const parsed = parseSettingsPatch(patch);
      if (!parsed.ok) return { ok: false, error: { code: 'invalid_settings', ...parsed.error } };
      const next: Sparse = { ...stored };
      for (const [key, value] of Object.entries(parsed.value)) {
        if (value === undefined) delete next[key as SettingKey];
        else next[key as SettingKey] = value;
      }
      try {
        persist(next);
      } catch (error) {
        return { ok: false, error: { code: 'settings_not_saved', message: `Settings could not be saved (${errorText(error)}).`, field: null } };
      }
      stored = next;
      const before = effective;
      effective = effectiveOf(stored);
      if (SETTING_KEYS.some((k) => before[k] !== effective[k])) {
        for (const cb of [...listeners]) {
          try {
            cb({ ...effective });
          } catch {
            // A listener's failure is its own; the change is saved and others still hear it.
          }
        }
      }
      return { ok: true, value: { ...effective } };
    },
  };
}
