import type { LogEntry } from '../../../shared/contract';

/**
 * The small ports through which everything OS-specific reaches the core, so the whole
 * runner runs and is tested under plain Node with fakes.
 */
export type TimerHandle = { readonly __timer: unique symbol } | ReturnType<typeof setTimeout>;

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A pending timer must never be what keeps a process alive at quit.
    t.unref?.();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface PlatformInfo {
  platform: string;
  arch: string;
  release: string;
  hostname: string;
  versions: { node: string; electron: string | null; chrome: string | null };
}

/** The structured logger the core writes to (pino-backed in production). */
export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
  child(component: string): Logger;
}

/** Recent, already-redacted log entries for the UI. */
export interface LogFeed {
  recent(limit: number): LogEntry[];
  subscribe(listener: (entry: LogEntry) => void): () => void;
}

/** What only a desktop shell can do for the core (Electron's `shell`); absent headless. */
export interface DesktopPort {
  openExternal(url: string): Promise<void>;
  /** Resolves with an error message, or '' on success (Electron's openPath). */
  openPath(path: string): Promise<string>;
  /** Asks where to save a file (a save dialog) and writes it there; resolves with the path, or null when the operator canceled. */
  saveFile(defaultName: string, data: Uint8Array): Promise<string | null>;
}
