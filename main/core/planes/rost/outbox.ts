import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { ResultRequestSchema, UnitKindSchema } from '../../../../shared/protocol';
import type { RunnerConnector, RunnerCredentials } from './connector';
import { ConnectorError, isConnectorError } from '../../connectors/errors';
import type { Clock, Logger, TimerHandle } from '../../base/ports';
import { backoffDelay } from '../../base/backoff';
import { errorText } from '../../../../shared/errors';

export const OutboxEntrySchema = z.object({
  runnerId: z.string().min(1),
  unit: z.object({ id: z.string().min(1), kind: UnitKindSchema }),
  result: ResultRequestSchema.extend({ idempotency_key: z.string().min(1) }),
  enqueuedAt: z.string(),
  attempts: z.number().int().min(0),
});
export type OutboxEntry = z.infer<typeof OutboxEntrySchema>;

const BACKOFF = { baseMs: 1_000, capMs: 5 * 60_000 };

export interface OutboxDeps {
  dir: string;
  clock: Clock;
  log: Logger;
  random?: () => number;
  /** The current runner's connector and credentials, or null while unpaired. */
  target(): { connector: RunnerConnector; credentials: RunnerCredentials } | null;
  onRevoked(): void;
  onChange?(pending: number): void;
  /** Called just before each delivery try of an entry. */
  beforeReport?(key: string): void;
  /** Each entry's fate: every failed try, the delivery, or the refusal. */
  onDelivery?(event: DeliveryEvent): void;
}

export type DeliveryEvent = {
  key: string;
  unitId: string;
  attempts: number;
  enqueuedAt: string;
} & ({ state: 'waiting'; error: string } | { state: 'delivered'; outcome: 'accepted' | 'already_recorded' } | { state: 'refused'; reason: string });

function fileName(key: string): string {
  return `${Buffer.from(key).toString('base64url')}.json`;
}

/**
 * Results are written to disk before the first delivery attempt and deleted only once
 * the control plane has them (200, or 409 already recorded), so a crash, a kill -9 or a
 * week offline loses nothing. Delivery is at-least-once; the idempotency key makes it
 * exactly-once at the server.
 */
export class ResultOutbox {
  private readonly entries = new Map<string, OutboxEntry>();
  private timer: TimerHandle | null = null;
  private delivering: Promise<void> | null = null;
  private running = false;
  private failures = 0;
  private suspended = false;
  /** Entry files being written, by key: an entry is removed from disk only after its write. */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(private readonly deps: OutboxDeps) {}

  get pending(): number {
    return this.entries.size;
  }

  /** Loads what a previous run left; damaged files are set aside, never deleted. */
  async load(): Promise<void> {
    await mkdir(this.deps.dir, { recursive: true, mode: 0o700 });
    for (const name of await readdir(this.deps.dir)) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(this.deps.dir, name);
      try {
        const entry = OutboxEntrySchema.parse(JSON.parse(await readFile(file, 'utf8')));
        this.entries.set(entry.result.idempotency_key, entry);
      } catch (error) {
        this.deps.log.error('an outbox entry is damaged and was set aside', { file: name, error: errorText(error) });
        await rm(`${file}.damaged`, { force: true });
        await writeFileAtomic(`${file}.damaged`, await readFile(file)).catch(() => undefined);
        await rm(file, { force: true });
      }
    }
    this.deps.onChange?.(this.entries.size);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.kick(0);
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * Resolves once the entry is on disk; its delivery starts at once, beside the write. A
   * crash before the file is down loses nothing: the caller's running journal still names
   * the unit, and the restart reports it under the same idempotency key (exactly once at
   * the server). The file is removed only after it was written.
   */
  async enqueue(entry: Omit<OutboxEntry, 'attempts' | 'enqueuedAt'>): Promise<void> {
    const full: OutboxEntry = { ...entry, attempts: 0, enqueuedAt: new Date(this.deps.clock.now()).toISOString() };
    const key = full.result.idempotency_key;
    const written = mkdir(this.deps.dir, { recursive: true, mode: 0o700 }).then(() =>
      writeFileAtomic(path.join(this.deps.dir, fileName(key)), JSON.stringify(full), { mode: 0o600 }),
    );
    this.writes.set(key, written);
    this.entries.set(key, full);
    this.deps.onChange?.(this.entries.size);
    this.failures = 0;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.running && !this.suspended) void this.deliverAll();
    try {
      await written;
    } finally {
      if (this.writes.get(key) === written) this.writes.delete(key);
    }
  }

  /** A heartbeat went through: the control plane is reachable and takes our credentials. */
  resume(): void {
    this.suspended = false;
    if (this.failures > 0) this.failures = 0;
    this.kick(0);
  }

  /** Wakes delivery. */
  kick(delayMs = 0): void {
    if (!this.running || this.suspended || this.entries.size === 0) return;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      void this.deliverAll();
    }, delayMs);
  }

  /** Resolves once every entry is delivered or the attempt failed; used to drain on quit. */
  async flush(): Promise<void> {
    await this.delivering;
    await this.deliverAll();
  }

  /** Resolves when the delivery pass under way (if any) ends. */
  async settled(): Promise<void> {
    while (this.delivering) await this.delivering;
  }

  private deliverAll(): Promise<void> {
    if (this.delivering || !this.running) return this.delivering ?? Promise.resolve();
    const target = this.deps.target();
    if (!target) return Promise.resolve();
    this.delivering = this.pass(target).finally(() => {
      this.delivering = null;
      // Results enqueued while this pass ran go out now.
      if (this.entries.size > 0 && this.timer === null) this.kick(0);
    });
    return this.delivering;
  }

  private async pass(target: { connector: RunnerConnector; credentials: RunnerCredentials }): Promise<void> {
    // A result that fails on its own (a 5xx for it) is retried later, but does not hold back
    // the others behind it; an unreachable control plane ends the pass at once.
    let retry: { unit: string; error: string } | null = null;
    for (const entry of [...this.entries.values()]) {
      if (!this.running) return;
      if (entry.runnerId !== target.credentials.runnerId) {
        this.deps.log.warn('dropping a result for a runner this machine no longer is', { unit: entry.unit.id });
        await this.remove(entry);
        continue;
      }
      try {
        this.deps.beforeReport?.(entry.result.idempotency_key);
        const outcome = await target.connector.report(target.credentials, entry.unit, entry.result);
        this.deps.log.info(outcome === 'accepted' ? 'result delivered' : 'result was already recorded', { unit: entry.unit.id, status: entry.result.status });
        await this.remove(entry);
        this.failures = 0;
        this.tell(entry, { state: 'delivered', outcome });
      } catch (error) {
        entry.attempts++;
        const message = errorText(error);
        if (isConnectorError(error, 'unauthorized')) {
          this.tell(entry, { state: 'waiting', error: 'the control plane refused our credentials' });
          // Nothing can be delivered with these credentials; wait for a good heartbeat.
          this.suspended = true;
          this.deps.onRevoked();
          return;
        }
        if (isPermanent(error)) {
          // The server will never take it (e.g. 400 for a unit it no longer knows): keep
          // the evidence in the log, stop retrying it.
          this.deps.log.error('the control plane refused a result; giving up on it', { unit: entry.unit.id, error: (error as Error).message });
          await this.remove(entry);
          this.tell(entry, { state: 'refused', reason: refusalReason(error) });
          continue;
        }
        this.tell(entry, { state: 'waiting', error: message });
        retry ??= { unit: entry.unit.id, error: message };
        if (isConnectorError(error, 'network') || isConnectorError(error, 'timeout')) break;
      }
    }
    if (retry && this.running) {
      this.failures++;
      const delay = backoffDelay(this.failures - 1, BACKOFF, this.deps.random);
      this.deps.log.warn('result delivery failed; will retry', { ...retry, retryInMs: delay });
      this.kick(delay);
    }
  }

  private tell(
    entry: OutboxEntry,
    fate: { state: 'waiting'; error: string } | { state: 'delivered'; outcome: 'accepted' | 'already_recorded' } | { state: 'refused'; reason: string },
  ): void {
    this.deps.onDelivery?.({
      key: entry.result.idempotency_key,
      unitId: entry.unit.id,
      attempts: entry.attempts + (fate.state === 'delivered' ? 1 : 0),
      enqueuedAt: entry.enqueuedAt,
      ...fate,
    });
  }

  private async remove(entry: OutboxEntry): Promise<void> {
    this.entries.delete(entry.result.idempotency_key);
    await this.writes.get(entry.result.idempotency_key)?.catch(() => undefined);
    await rm(path.join(this.deps.dir, fileName(entry.result.idempotency_key)), { force: true });
    this.deps.onChange?.(this.entries.size);
  }
}

/** The control plane's reason for refusing, in its own words where it gave a code (redacted upstream). */
function refusalReason(error: unknown): string {
  if (error instanceof ConnectorError) return error.code ? `${error.code} (${error.status ?? '4xx'})` : `refused (${error.status ?? '4xx'})`;
  return errorText(error);
}

/**
 * A refusal the control plane will repeat for ever: a 4xx other than 408/429, or a 404 that
 * the control plane itself answered with its error code (it does not know the unit). A 404
 * with no code is a proxy or a wrong address, not a verdict on the result: it is retried.
 */
function isPermanent(error: unknown): boolean {
  if (!(error instanceof ConnectorError) || error.status === undefined) return false;
  if (error.kind === 'not_found') return error.code !== undefined;
  return error.kind === 'rejected' && error.status < 500 && error.status !== 408 && error.status !== 429;
}
