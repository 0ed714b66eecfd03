import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { errorText } from '../../../shared/errors';
import { backoffDelay, type BackoffPolicy } from '../base/backoff';
import type { Clock, Logger, TimerHandle } from '../base/ports';

/** The errors that say a folder cannot be written (full, read-only, not ours, over quota, failing). */
const STORAGE_WORDS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EDQUOT: 'disk quota exceeded',
  EIO: 'input/output error',
};

/** The code of an error that says the disk refuses writes (ENOSPC, EROFS, EACCES, EDQUOT, EIO), or null. */
export function storageErrorCode(error: unknown): string | null {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && code in STORAGE_WORDS ? code : null;
}

/** A folder a claim needs that cannot be written, and why. */
export interface StorageProblem {
  path: string;
  code: string | null;
  message: string;
}

const STORAGE_REASON = 'Cannot write to ';

/** "Cannot write to /data/…/running: no space left on device (ENOSPC) — taking no work until it can" */
export function storageReason(problem: StorageProblem): string {
  const why = problem.code ? `${STORAGE_WORDS[problem.code] ?? problem.message} (${problem.code})` : problem.message;
  return `${STORAGE_REASON}${problem.path}: ${why} — taking no work until it can`;
}

/** Whether a status reason is storageReason's (a disk that refuses writes). */
export function isStorageReason(reason: string): boolean {
  return reason.startsWith(STORAGE_REASON);
}

const PROBE_BYTES = Buffer.alloc(4096, 0x2e);

/** Proves `dir` takes a write: a small file written, fsynced, renamed and removed. */
export async function probeFolder(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const name = path.join(dir, `.write-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(name, 'wx', 0o600);
    try {
      await handle.write(PROBE_BYTES);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(name, `${name}.done`);
    await rm(`${name}.done`, { force: true });
  } finally {
    await rm(name, { force: true }).catch(() => undefined);
  }
}

/** What a claim gate and the writers need of the health. */
export type StoragePort = Pick<StorageHealth, 'check' | 'failed' | 'reason'>;

export interface StorageHealthDeps {
  clock: Clock;
  log: Logger;
  random?: () => number;
  /** The folders a claim needs to write (its journal, its outbox, the turn folders). */
  folders(): string[];
  probe?: (dir: string) => Promise<void>;
  backoff?: BackoffPolicy;
  /** The health changed (a problem, another problem, or none). */
  onChange(problem: StorageProblem | null): void;
}

const PROBE_BACKOFF: BackoffPolicy = { baseMs: 1_000, capMs: 30_000 };

/**
 * Whether a profile can write what a claim needs. The folders are probed before each claim
 * and after a writer's storage error; while one fails, claims stop, the probe is tried again
 * on a backoff, and the health comes back by itself once every folder takes a write.
 */
export class StorageHealth {
  private current: StorageProblem | null = null;
  private inFlight: Promise<boolean> | null = null;
  private timer: TimerHandle | null = null;
  private failures = 0;
  private stopped = false;

  constructor(private readonly deps: StorageHealthDeps) {}

  get problem(): StorageProblem | null {
    return this.current;
  }

  /** The status line while a folder cannot be written, else null. */
  get reason(): string | null {
    return this.current ? storageReason(this.current) : null;
  }

  /** Probes every folder now (one probe at a time); true when all take a write. */
  check(): Promise<boolean> {
    this.stopped = false;
    return this.probe();
  }

  /** A writer failed: a storage error has the folders probed at once. True when it was one. */
  failed(error: unknown): boolean {
    if (!storageErrorCode(error)) return false;
    this.deps.log.warn('a write failed; checking the data folders', { error: errorText(error) });
    void this.probe();
    return true;
  }

  /** Something went wrong that may be the disk (a turn failed, a write of unknown kind): the folders are probed. */
  suspect(): void {
    void this.probe();
  }

  /** No more retries (the session stops); a later `check` starts again. */
  stop(): void {
    this.stopped = true;
    this.clearTimer();
  }

  private probe(): Promise<boolean> {
    this.inFlight ??= this.probeAll().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async probeAll(): Promise<boolean> {
    const probe = this.deps.probe ?? probeFolder;
    let problem: StorageProblem | null = null;
    for (const dir of this.deps.folders()) {
      try {
        await probe(dir);
      } catch (error) {
        problem = { path: dir, code: storageErrorCode(error) ?? (error as NodeJS.ErrnoException | null)?.code ?? null, message: errorText(error) };
        break;
      }
    }
    this.settle(problem);
    return problem === null;
  }

  private settle(problem: StorageProblem | null): void {
    const before = this.current;
    this.current = problem;
    this.clearTimer();
    if (problem) {
      const delay = backoffDelay(this.failures++, this.deps.backoff ?? PROBE_BACKOFF, this.deps.random);
      if (!this.stopped) this.timer = this.deps.clock.setTimeout(() => void this.probe(), delay);
      if (!before || before.path !== problem.path || before.code !== problem.code) {
        this.deps.log.error('cannot write to the data folder; taking no work until it can', { folder: problem.path, error: problem.message, retryInMs: delay });
        this.deps.onChange(problem);
      }
      return;
    }
    this.failures = 0;
    if (before) {
      this.deps.log.info('the data folder takes writes again; taking work', { folder: before.path });
      this.deps.onChange(null);
    }
  }

  private clearTimer(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
