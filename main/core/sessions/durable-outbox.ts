import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { z } from 'zod';
import { errorText } from '../../../shared/errors';
import { backoffDelay } from '../base/backoff';
import type { Clock, Logger, TimerHandle } from '../base/ports';

/*
 * What a finished turn owes its control plane, kept on disk until the plane has it: the one
 * outbox under both planes. Each entry is a file in `dir`, written before (or, where the plane
 * asks, beside) its first delivery try and removed only once the plane has it or refused it
 * for good, so a crash, a kill -9 or a week offline loses nothing. Delivery is at-least-once;
 * the entry's idempotency key makes it exactly-once at the server.
 *
 * The plane's courier knows the wire: it delivers one entry and says how the try ended. The
 * outbox owns the files, the order of tries, the backoff after a failed pass and the wait for
 * new credentials.
 */

/** How one try of one entry ended, as the plane's courier reads it. */
export type DeliveryTry =
  /** The plane has it: the entry goes, and the failures so far are forgotten; `after` runs once it is gone. */
  | { outcome: 'delivered'; after?(): void }
  /** The plane will never take it: the entry goes; `after` (the courier telling its owner) runs once it is gone. */
  | { outcome: 'dropped'; after?(): void }
  /** The plane refused our credentials: nothing is tried again until `resume()`. */
  | { outcome: 'suspend' }
  /**
   * Try again later, after a backoff. `holdsOthers`: the plane is unreachable, so the pass
   * ends here; else the entries behind this one are still tried.
   */
  | { outcome: 'retry'; holdsOthers: boolean; details: Record<string, unknown> };

export interface OutboxCourier<E, T> {
  /** What a delivery needs now (a runner's credentials), or null: no pass until there is. */
  target(): T | null;
  deliver(entry: E, target: T): Promise<DeliveryTry>;
  /** The order of one pass (default: as enqueued and loaded). */
  order?(entries: E[]): E[];
}

export interface DurableOutboxOptions<E, T> {
  dir: string;
  schema: z.ZodType<E>;
  keyOf(entry: E): string;
  /** What an entry is called in the log ("an outbox entry"). */
  noun: string;
  /** What the log says when a pass failed and will be retried. */
  retryLine: string;
  clock: Clock;
  log: Logger;
  random?: () => number;
  courier: OutboxCourier<E, T>;
  /**
   * true: a new entry's delivery starts beside its write (a crash before the file is down is
   * covered by the caller's running journal) and a new entry ends the backoff. false: the
   * write comes first, and a new entry joins the retry already set.
   */
  deliverBesideWrite: boolean;
  onChange?(pending: number): void;
}

const BACKOFF = { baseMs: 1_000, capMs: 5 * 60_000 };
const fileName = (key: string) => `${Buffer.from(key).toString('base64url')}.json`;

export class DurableOutbox<E, T = true> {
  private readonly entries = new Map<string, E>();
  /** Entry files being written, by key: an entry is removed from disk only after its write. */
  private readonly writes = new Map<string, Promise<void>>();
  private timer: TimerHandle | null = null;
  private delivering: Promise<void> | null = null;
  private running = false;
  private suspended = false;
  private failures = 0;

  constructor(private readonly o: DurableOutboxOptions<E, T>) {}

  /** Something is being written or delivered now; when false, what is left waits on the clock (a retry) or on nothing. */
  get busy(): boolean {
    return this.delivering !== null || this.writes.size > 0;
  }

  get pending(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  list(): E[] {
    return [...this.entries.values()];
  }

  /** Loads what a previous run left; a damaged file is set aside, never deleted. */
  async load(): Promise<void> {
    await mkdir(this.o.dir, { recursive: true, mode: 0o700 });
    for (const name of (await readdir(this.o.dir)).sort()) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(this.o.dir, name);
      try {
        const entry = this.o.schema.parse(JSON.parse(await readFile(file, 'utf8')));
        this.entries.set(this.o.keyOf(entry), entry);
      } catch (error) {
        this.o.log.error(`${this.o.noun} is damaged and was set aside`, { file: name, error: errorText(error) });
        await writeFileAtomic(`${file}.damaged`, await readFile(file)).catch(() => undefined);
        await rm(file, { force: true });
      }
    }
    this.o.onChange?.(this.entries.size);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.kick(0);
  }

  stop(): void {
    this.running = false;
    this.clearTimer();
  }

  /** Resolves once the entry is on disk (it replaces one queued under its key). */
  async enqueue(entry: E): Promise<void> {
    const key = this.o.keyOf(entry);
    const written = mkdir(this.o.dir, { recursive: true, mode: 0o700 }).then(() =>
      writeFileAtomic(path.join(this.o.dir, fileName(key)), JSON.stringify(entry), { mode: 0o600 }),
    );
    if (!this.o.deliverBesideWrite) {
      await written;
      this.put(key, entry);
      if (this.failures === 0) this.kick(0);
      return;
    }
    // Its delivery starts now, beside the write: the file is removed only once it is down.
    this.writes.set(key, written);
    this.put(key, entry);
    this.failures = 0;
    this.clearTimer();
    if (this.running && !this.suspended) void this.deliverAll();
    try {
      await written;
    } finally {
      if (this.writes.get(key) === written) this.writes.delete(key);
    }
  }

  private put(key: string, entry: E): void {
    this.entries.set(key, entry);
    this.o.onChange?.(this.entries.size);
  }

  /** The plane takes our credentials again (a good heartbeat, a new sign-in): deliver now. */
  resume(): void {
    this.suspended = false;
    this.failures = 0;
    this.kick(0);
  }

  /** Wakes delivery after `delayMs`. */
  kick(delayMs = 0): void {
    if (!this.running || this.suspended || this.entries.size === 0) return;
    this.clearTimer();
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = null;
      void this.deliverAll();
    }, delayMs);
  }

  /** One delivery pass now; resolves when it ends (the drain on quit, and tests). */
  async flush(): Promise<void> {
    await this.delivering;
    await this.deliverAll();
  }

  /** Resolves when the delivery pass under way (if any) ends. */
  async settled(): Promise<void> {
    while (this.delivering) await this.delivering;
  }

  private clearTimer(): void {
    if (this.timer !== null) this.o.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private deliverAll(): Promise<void> {
    if (this.delivering || !this.running || this.suspended) return this.delivering ?? Promise.resolve();
    const target = this.o.courier.target();
    if (target === null) return Promise.resolve();
    this.delivering = this.pass(target).finally(() => {
      this.delivering = null;
      // Entries enqueued while this pass ran go out now.
      if (this.entries.size > 0 && this.timer === null && this.failures === 0) this.kick(0);
    });
    return this.delivering;
  }

  private async pass(target: T): Promise<void> {
    const all = [...this.entries.values()];
    let retry: Record<string, unknown> | null = null;
    for (const entry of this.o.courier.order?.(all) ?? all) {
      if (!this.running || this.suspended) return;
      const tried = await this.o.courier.deliver(entry, target);
      if (tried.outcome === 'suspend') {
        this.suspended = true;
        return;
      }
      if (tried.outcome === 'retry') {
        retry ??= tried.details;
        if (tried.holdsOthers) break;
        continue;
      }
      await this.remove(entry);
      if (tried.outcome === 'delivered') this.failures = 0;
      tried.after?.();
    }
    if (retry && this.running) {
      this.failures++;
      const delay = backoffDelay(this.failures - 1, BACKOFF, this.o.random);
      this.o.log.warn(this.o.retryLine, { ...retry, retryInMs: delay });
      this.kick(delay);
    }
  }

  private async remove(entry: E): Promise<void> {
    const key = this.o.keyOf(entry);
    this.entries.delete(key);
    await this.writes.get(key)?.catch(() => undefined);
    await rm(path.join(this.o.dir, fileName(key)), { force: true });
    this.o.onChange?.(this.entries.size);
  }
}
