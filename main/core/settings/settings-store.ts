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

const ALL_RESET = 'every setting in it is back to its default';

/** The settings document on disk: read, migrated and checked key by key; set aside with a copy when it cannot be used. */
class SettingsFile {
  private readonly currentVersion: number;
  private readonly name: string;

  constructor(
    private readonly backend: SettingsBackend,
    private readonly migrations: NonNullable<SettingsStoreOptions['migrations']>,
    private readonly warn: (message: string) => void,
  ) {
    this.currentVersion = migrations.length + 1;
    this.name = backend.path ? `Settings file ${backend.path}` : 'Settings file';
  }

  persist(sparse: Sparse): void {
    this.backend.write({ schemaVersion: this.currentVersion, settings: compact(sparse) });
  }

  load(): Sparse {
    let raw: unknown;
    try {
      raw = this.backend.read();
    } catch (error) {
      this.repair(`could not be read (${errorText(error)})`, {}, ALL_RESET);
      return {};
    }
    if (isEmptyDocument(raw)) return {};
    const migrated = migrateSettingsDocument(raw, this.migrations);
    if (!migrated.ok) {
      this.repair(`was not usable: ${migrated.reason}`, {}, ALL_RESET);
      return {};
    }
    const { sparse, invalid } = checkEach(migrated.settings);
    if (invalid.length > 0) {
      this.repair(
        `had settings that are not valid: ${invalid.join(', ')}`,
        sparse,
        `${invalid.length === 1 ? 'that one is' : 'those are'} back to the default`,
      );
    } else if (migrated.fromVersion < this.currentVersion) this.saveUpgrade(sparse, migrated.fromVersion);
    return sparse;
  }

  private saveUpgrade(sparse: Sparse, fromVersion: number): void {
    const copy = this.keepCopy();
    if (copy.failed !== undefined) {
      this.warn(`Settings were upgraded from schema ${fromVersion} in memory only: no copy of the old file could be kept (${copy.failed}).`);
      return;
    }
    try {
      this.persist(sparse);
    } catch (error) {
      this.warn(`Upgraded settings could not be saved (${errorText(error)}); they will be saved on the next change.`);
    }
  }

  /** Sets the file aside, then rewrites it, saying in one line which file, what was reset, and where the copy is. */
  private repair(problem: string, sparse: Sparse, reset: string): void {
    const copy = this.keepCopy();
    if (copy.failed !== undefined) {
      this.warn(`${this.name} ${problem}; ${reset} for now, but no copy could be kept (${copy.failed}), so the file was left as it is.`);
      return;
    }
    const where = copy.path ? `a copy of the old file is at ${copy.path}` : 'there was no file to copy';
    this.warn(`${this.name} ${problem}; ${reset}, and ${where}.`);
    try {
      this.persist(sparse);
    } catch (error) {
      this.warn(`Settings could not be rewritten (${errorText(error)}); they will be saved on the next change.`);
    }
  }

  private keepCopy(): { path?: string; failed?: string } {
    if (!this.backend.backup) return { failed: 'this storage cannot keep copies' };
    try {
      const path = this.backend.backup();
      return path === undefined ? {} : { path };
    } catch (error) {
      return { failed: errorText(error) };
    }
  }
}

/** Each stored setting parsed on its own: the valid ones kept, the rest named. */
function checkEach(settings: Record<string, unknown>): { sparse: Sparse; invalid: string[] } {
  const sparse: Sparse = {};
  const invalid: string[] = [];
  for (const [key, value] of Object.entries(settings)) {
    if (!(SETTING_KEYS as readonly string[]).includes(key)) {
      invalid.push(`${key} (unknown)`);
      continue;
    }
    const parsed: ParseResult<unknown> = parseSetting(key as SettingKey, value);
    if (parsed.ok) sparse[key as SettingKey] = parsed.value;
    else invalid.push(key);
  }
  return { sparse, invalid };
}

function applyPatch(stored: Sparse, patch: Partial<Record<SettingKey, unknown>>): Sparse {
  const next: Sparse = { ...stored };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete next[key as SettingKey];
    else next[key as SettingKey] = value as never;
  }
  return next;
}

export function createSettingsStore(options: SettingsStoreOptions): PersistentSettingsStore {
  const defaults = defaultSettings(options.hostname);
  const warnings: string[] = [];
  const listeners = new Set<(s: Settings) => void>();
  const warn = (message: string): void => {
    warnings.push(message);
    options.onWarning?.(message);
  };
  const file = new SettingsFile(options.backend, options.migrations ?? SETTINGS_MIGRATIONS, warn);
  let stored = file.load();
  const overrides: Sparse = {};
  if (options.overrides) {
    const parsed = parseSettingsPatch(options.overrides);
    if (parsed.ok) Object.assign(overrides, compact(parsed.value));
    else warn(`Ignored overrides: ${parsed.error.message}`);
  }
  const effectiveOf = (sparse: Sparse): Settings => ({ ...defaults, ...compact(sparse), ...overrides }) as Settings;
  let effective = effectiveOf(stored);
  const tell = () => {
    for (const cb of [...listeners]) {
      try {
        cb({ ...effective });
      } catch {
        // A listener's failure is its own; the change is saved and others still hear it.
      }
    }
  };
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
      const next = applyPatch(stored, parsed.value);
      try {
        file.persist(next);
      } catch (error) {
        return { ok: false, error: { code: 'settings_not_saved', message: `Settings could not be saved (${errorText(error)}).`, field: null } };
      }
      stored = next;
      const before = effective;
      effective = effectiveOf(stored);
      if (SETTING_KEYS.some((k) => before[k] !== effective[k])) tell();
      return { ok: true, value: { ...effective } };
    },
  };
}
