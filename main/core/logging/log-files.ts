// Rotating log files: pino-roll rolls them (daily, hourly or a period, and by size),
// this module keeps the newest few and owns every handle, so `close()` ends them all.
//
// pino-roll runs in this thread as a SonicBoom stream in sync mode: no worker thread
// (pino's transports are), writes are on disk when `write` returns, and a crash loses
// nothing already logged. Log volume here is low enough that sync writes cost nothing.
// Retention is done here rather than by pino-roll's `limit`, whose clean-up runs
// detached from the stream's life and could outlive `close()`.
import { chmodSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import pinoRoll, { type RollingStream } from 'pino-roll';

export interface RotationOptions {
  /** `daily` (default), `hourly`, or a period in milliseconds. */
  frequency?: 'daily' | 'hourly' | number;
  /** Also roll when a file reaches this size: `10m` (default), `512k`, `2048b`. */
  size?: string;
  /** How many files to keep, the current one included (default 7). */
  keep?: number;
}

export interface LogFiles {
  /** The file being written, or null once closed or after a write error. */
  readonly file: string | null;
  write(line: string): void;
  close(): Promise<void>;
}

export interface LogFilesOptions {
  dir: string;
  baseName: string;
  rotation?: RotationOptions;
  /** Called once when writing fails (disk full, permissions); files stop, the app goes on. */
  onError: (code: string) => void;
}

const FILE_PATTERN = /^(.+)\.(\d{4}-\d{2}-\d{2})\.(\d+)\.log$/;

/** The files of this base name in `dir`, oldest first. */
export function listLogFiles(dir: string, baseName: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, m: FILE_PATTERN.exec(name) }))
    .filter((f) => f.m !== null && f.m[1] === baseName)
    .sort((a, b) => (a.m?.[2] ?? '').localeCompare(b.m?.[2] ?? '') || Number(a.m?.[3]) - Number(b.m?.[3]))
    .map((f) => f.name);
}

function prune(dir: string, baseName: string, keep: number, current: string | null): void {
  const files = listLogFiles(dir, baseName);
  for (const name of files.slice(0, Math.max(0, files.length - keep))) {
    if (current !== null && join(dir, name) === current) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // already gone, or not ours to remove: retention is best effort
    }
  }
}

export async function openLogFiles(options: LogFilesOptions): Promise<LogFiles> {
  const { dir, baseName } = options;
  const rotation = options.rotation ?? {};
  const keep = Math.max(1, Math.floor(rotation.keep ?? 7));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    chmodSync(dir, 0o700); // logs are redacted, but still nobody else's business
  } catch {
    // not the owner (a shared directory given on purpose): leave it
  }
  const stream: RollingStream = await pinoRoll({
    file: join(dir, baseName),
    extension: '.log',
    frequency: rotation.frequency ?? 'daily',
    size: rotation.size ?? '10m',
    dateFormat: 'yyyy-MM-dd',
    mode: 0o600,
    sync: true,
  });
  let failed = false;
  let closed = false;
  let lastFile: string | null = stream.file;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true;
    options.onError(error.code ?? 'error');
  });
  prune(dir, baseName, keep, lastFile);

  const pruneIfRolled = (): void => {
    if (stream.file !== lastFile) {
      lastFile = stream.file;
      prune(dir, baseName, keep, lastFile);
    }
  };

  return {
    get file() {
      return closed || failed ? null : stream.file;
    },
    write(line) {
      if (closed || failed || stream.destroyed) return;
      pruneIfRolled();
      try {
        stream.write(line);
      } catch (error) {
        failed = true;
        options.onError((error as NodeJS.ErrnoException).code ?? 'error');
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      pruneIfRolled();
      if (!stream.destroyed) {
        await new Promise<void>((resolve) => {
          stream.once('close', () => resolve());
          stream.once('error', () => resolve());
          stream.end();
        });
      }
      // Let the fs callback that emitted 'close' finish, so nothing of ours is left pending.
      await new Promise<void>((resolve) => setImmediate(resolve));
    },
  };
}
