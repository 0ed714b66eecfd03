// Settings backends over `conf` (headless host) and anything shaped like it
// (`electron-store` extends `conf`, so the Electron shell reuses `backendFromConfLike`).
//
// conf on its own throws from its constructor on a file that is not JSON, or (with
// `clearInvalidConfig`) empties it without a word. Both break "never crash, never lose
// the file silently", so the store is opened with `tolerantJsonDeserialize`: an
// unreadable file becomes a marker object, `read()` turns the marker into an error,
// and the settings store keeps a copy before anything is written over it.
import { chmodSync, constants, copyFileSync, existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import Conf from 'conf';
import type { SettingsBackend } from './settings-store';

const UNREADABLE = '__runnerTrayUnreadable__';

/** Settings files are owner-only: they say which control plane gets the runner's secret. */
export const SETTINGS_FILE_MODE = 0o600;

/** Tightens an existing settings file to 0600 (conf's mode applies only when it creates one). POSIX only. */
export function ownerOnlySettingsFile(path: string, platform: string = process.platform): void {
  if (platform === 'win32') return;
  try {
    const stat = lstatSync(path);
    if (stat.isFile() && (stat.mode & 0o077) !== 0) chmodSync(path, SETTINGS_FILE_MODE);
  } catch {
    // not there yet: conf creates it with SETTINGS_FILE_MODE
  }
}

export class SettingsFileUnreadableError extends Error {
  override readonly name = 'SettingsFileUnreadableError';
}

/** A `deserialize` for conf/electron-store that never throws: pass it when constructing them. */
export function tolerantJsonDeserialize(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    return { [UNREADABLE]: 'it does not hold a JSON object' };
  } catch {
    return { [UNREADABLE]: 'it is not valid JSON' };
  }
}

/** The part of conf/electron-store a backend needs: the file path and the whole-store accessor. */
export interface ConfLike {
  readonly path: string;
  store: Record<string, unknown>;
}

export interface ConfLikeBackendOptions {
  /** Clock for backup names (tests pass a fixed one). */
  now?: () => Date;
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[:.]/g, '-');
}

/**
 * Wraps a conf-like store. With electron-store the adapter is one line:
 * `backendFromConfLike(new ElectronStore({ name: 'settings', deserialize: tolerantJsonDeserialize }))`.
 */
export function backendFromConfLike(store: ConfLike, options: ConfLikeBackendOptions = {}): SettingsBackend {
  const now = options.now ?? (() => new Date());
  return {
    read() {
      const data = store.store;
      const problem = data[UNREADABLE];
      if (typeof problem === 'string') throw new SettingsFileUnreadableError(problem);
      return data;
    },
    write(data) {
      store.store = data as Record<string, unknown>;
    },
    backup() {
      if (!existsSync(store.path)) return undefined;
      const target = `${store.path}.${stamp(now())}.bak`;
      copyFileSync(store.path, target, constants.COPYFILE_EXCL);
      return target;
    },
  };
}

export interface ConfSettingsBackendOptions extends ConfLikeBackendOptions {
  /** Directory of the settings file (created if missing). */
  dir: string;
  /** File name without extension; default `settings`. */
  name?: string;
}

/**
 * The headless host's backend: `<dir>/<name>.json`, written atomically by conf, owner-only.
 * conf is opened on first use, so a file conf cannot open (permissions) surfaces as a
 * read error the settings store reports, not as a throw from here.
 */
export function createConfSettingsBackend(options: ConfSettingsBackendOptions): SettingsBackend & { readonly path: string } {
  const filePath = join(options.dir, `${options.name ?? 'settings'}.json`);
  let conf: Conf<Record<string, unknown>> | undefined;
  const open = (): Conf<Record<string, unknown>> =>
    (conf ??= new Conf<Record<string, unknown>>({
      cwd: options.dir,
      configName: options.name ?? 'settings',
      configFileMode: SETTINGS_FILE_MODE,
      accessPropertiesByDotNotation: false,
      deserialize: tolerantJsonDeserialize,
      serialize: (value) => `${JSON.stringify(value, null, 2)}\n`,
    }));
  ownerOnlySettingsFile(filePath);
  const lazy: ConfLike = {
    path: filePath,
    get store() {
      return open().store;
    },
    set store(value) {
      open().store = value;
    },
  };
  return { ...backendFromConfLike(lazy, options), path: filePath };
}
