import { errorText } from '../../../../shared/errors';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import { z } from 'zod';
import { LeaseCompleteInputSchema, RunTelemetryEventSchema } from '../../../../shared/protocol/sechroom';
import type { Clock, Logger, TimerHandle } from '../../base/ports';
import { backoffDelay } from '../../base/backoff';
import { isConnectorError, type ConnectorError } from '../../connectors/errors';
import { requestTimeoutMs } from '../../sessions/lease-cadence';
import type { WorkLayerClient } from './work-layer-client';

/*
 * What a Sechroom turn owes the Work Layer once it is over: the completion, then its run
 * telemetry. Written to disk before the first attempt and removed only once the Work Layer
 * has it, like the Rost result outbox (work/outbox.ts), so a crash, a restart or an outage
 * loses nothing. The idempotency key is the lease: the Work Layer answers a repeated
 * identical completion with the recorded one (`repeated: true`), so a retry after a lost
 * answer completes nothing twice.
 */

const Base = z.object({
  key: z.string().min(1),
  instanceId: z.string().min(1),
  memoryId: z.string().min(1),
  enqueuedAt: z.string(),
  attempts: z.number().int().min(0),
});
export const SechroomOutboxEntrySchema = z.discriminatedUnion('kind', [
  Base.extend({ kind: z.literal('complete'), leaseId: z.string().min(1), input: LeaseCompleteInputSchema }),
  Base.extend({
    kind: z.literal('telemetry'),
    leaseId: z.string().min(1),
    decompositionId: z.string().min(1),
    events: z.array(RunTelemetryEventSchema).min(1),
  }),
]);
export type SechroomOutboxEntry = z.infer<typeof SechroomOutboxEntrySchema>;
export type NewOutboxEntry = DistributiveOmit<SechroomOutboxEntry, 'key' | 'enqueuedAt' | 'attempts'>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export const completionKey = (leaseId: string) => `complete:${leaseId}`;
export const telemetryKey = (leaseId: string) => `telemetry:${leaseId}`;

/** How an entry ended, for the owner's records. */
export type OutboxDelivery =
  | { kind: 'complete'; entry: Extract<SechroomOutboxEntry, { kind: 'complete' }>; outcome: 'completed' | 'repeated'; completionMemoryId: string | null }
  | { kind: 'complete'; entry: Extract<SechroomOutboxEntry, { kind: 'complete' }>; outcome: 'rejected'; message: string }
  | { kind: 'telemetry'; entry: Extract<SechroomOutboxEntry, { kind: 'telemetry' }>; outcome: 'sent'; eventCount: number }
  | { kind: 'telemetry'; entry: Extract<SechroomOutboxEntry, { kind: 'telemetry' }>; outcome: 'rejected'; message: string };

const BACKOFF = { baseMs: 1_000, capMs: 5 * 60_000 };

export interface SechroomOutboxDeps {
  dir: string;
  client: Pick<WorkLayerClient, 'complete' | 'telemetry'>;
  clock: Clock;
  log: Logger;
  random?: () => number;
  onDelivered?(delivery: OutboxDelivery): void;
  /** The bearer was refused for good: delivery waits for `resume()`. */
  onAuthExpired?(error: ConnectorError): void;
  onChange?(pending: number): void;
  /** How long a completion's lease has left (its keeper's count): the request waits no longer. Null: not known. */
  leaseTimeLeftMs?(leaseId: string): number | null;
}

const fileName = (key: string) => `${Buffer.from(key).toString('base64url')}.json`;

export class SechroomOutbox {
  private readonly entries = new Map<string, SechroomOutboxEntry>();
  private timer: TimerHandle | null = null;
  private delivering: Promise<void> | null = null;
  private running = false;
  private suspended = false;
  private failures = 0;

  constructor(private readonly deps: SechroomOutboxDeps) {}

  get pending(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  list(): SechroomOutboxEntry[] {
    return [...this.entries.values()];
  }

  /** Loads what a previous run left; a damaged file is set aside, never deleted. */
  async load(): Promise<void> {
    await mkdir(this.deps.dir, { recursive: true, mode: 0o700 });
    for (const name of (await readdir(this.deps.dir)).sort()) {
      if (!name.endsWith('.json')) continue;
      const file = path.join(this.deps.dir, name);
      try {
        const entry = SechroomOutboxEntrySchema.parse(JSON.parse(await readFile(file, 'utf8')));
        this.entries.set(entry.key, entry);
      } catch (error) {
        this.deps.log.error('a Sechroom outbox entry is damaged and was set aside', {
          file: name,
          error: errorText(error),
        });
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

  /** Durable first: resolves once the entry is on disk (an entry already queued under its key is kept). */
  async enqueue(entry: NewOutboxEntry): Promise<string> {
    const key = entry.kind === 'complete' ? completionKey(entry.leaseId) : telemetryKey(entry.leaseId);
    if (this.entries.has(key)) return key;
    const full = { ...entry, key, attempts: 0, enqueuedAt: new Date(this.deps.clock.now()).toISOString() } as SechroomOutboxEntry;
    await mkdir(this.deps.dir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(path.join(this.deps.dir, fileName(key)), JSON.stringify(full), { mode: 0o600 });
    this.entries.set(key, full);
    this.deps.onChange?.(this.entries.size);
    // While backing off, the new entry goes with the retry already set: a telemetry entry
    // queued behind a failing completion must not cost the Work Layer an extra attempt.
    if (this.failures === 0) this.kick(0);
    return key;
  }

  /** The Work Layer takes our bearer again (or the control plane is back): deliver now. */
  resume(): void {
    this.suspended = false;
    this.failures = 0;
    this.kick(0);
  }

  kick(delayMs = 0): void {
    if (!this.running || this.suspended || this.entries.size === 0) return;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      void this.deliverAll();
    }, delayMs);
  }

  /** One delivery pass now; resolves when it ends (used to drain on stop, and by tests). */
  async flush(): Promise<void> {
    await this.delivering;
    await this.deliverAll();
  }

  private deliverAll(): Promise<void> {
    if (this.delivering || !this.running || this.suspended) return this.delivering ?? Promise.resolve();
    this.delivering = this.pass().finally(() => {
      this.delivering = null;
      if (this.entries.size > 0 && this.timer === null && this.failures === 0) this.kick(0);
    });
    return this.delivering;
  }

  private async pass(): Promise<void> {
    // Completions first: they are what frees the task; telemetry follows its completion.
    const ordered = [...this.entries.values()].sort((a, b) => (a.kind === b.kind ? a.enqueuedAt.localeCompare(b.enqueuedAt) : a.kind === 'complete' ? -1 : 1));
    for (const entry of ordered) {
      if (!this.running || this.suspended) return;
      try {
        const delivery = await this.deliver(entry);
        await this.remove(entry);
        this.failures = 0;
        this.deps.onDelivered?.(delivery);
      } catch (error) {
        entry.attempts++;
        if (isConnectorError(error, 'unauthorized')) {
          this.suspended = true;
          this.deps.log.warn('Sechroom delivery is waiting for a new sign-in', { key: entry.key });
          this.deps.onAuthExpired?.(error);
          return;
        }
        if (entry.kind === 'complete' && isConnectorError(error) && error.code === 'already_completed') {
          // Completed already (by an earlier attempt of ours with another body, or elsewhere): nothing re-offers.
          await this.remove(entry);
          this.deps.log.warn(`${entry.memoryId} was already completed; this completion was not recorded`, { leaseId: entry.leaseId });
          this.deps.onDelivered?.({ kind: 'complete', entry, outcome: 'repeated', completionMemoryId: null });
          continue;
        }
        if (isConnectorError(error) && !error.retryable && error.status !== 408 && error.status !== 429) {
          await this.remove(entry);
          this.rejected(entry, error);
          continue;
        }
        this.failures++;
        const delay = backoffDelay(this.failures - 1, BACKOFF, this.deps.random);
        this.deps.log.warn('Sechroom delivery failed; will retry', {
          key: entry.key,
          error: errorText(error),
          retryInMs: delay,
        });
        this.kick(delay);
        return;
      }
    }
  }

  private async deliver(entry: SechroomOutboxEntry): Promise<OutboxDelivery> {
    if (entry.kind === 'complete') {
      const left = this.deps.leaseTimeLeftMs?.(entry.leaseId) ?? null;
      const done = await this.deps.client.complete(entry.leaseId, entry.input, left === null ? {} : { timeoutMs: requestTimeoutMs(left) });
      this.deps.log.info(`completed ${entry.memoryId} verdict:${entry.input.verdict} → ${done.completionMemoryId}`, { repeated: done.repeated === true });
      return { kind: 'complete', entry, outcome: done.repeated ? 'repeated' : 'completed', completionMemoryId: done.completionMemoryId };
    }
    const sent = await this.deps.client.telemetry(entry.decompositionId, entry.events);
    return { kind: 'telemetry', entry, outcome: 'sent', eventCount: sent.eventCount };
  }

  private rejected(entry: SechroomOutboxEntry, error: ConnectorError): void {
    if (entry.kind === 'complete') {
      // The seed's words [seed B6.5]: the lease is gone, the task re-offers.
      const message = `COMPLETE REJECTED for ${entry.memoryId} (${error.message}) — task will re-offer; investigate the heartbeat gap.`;
      this.deps.log.error(message, { leaseId: entry.leaseId, code: error.code });
      this.deps.onDelivered?.({ kind: 'complete', entry, outcome: 'rejected', message });
    } else {
      const message = `telemetry emit failed (non-fatal): ${error.message}`;
      this.deps.log.warn(message, { decompositionId: entry.decompositionId });
      this.deps.onDelivered?.({ kind: 'telemetry', entry, outcome: 'rejected', message });
    }
  }

  private async remove(entry: SechroomOutboxEntry): Promise<void> {
    this.entries.delete(entry.key);
    await rm(path.join(this.deps.dir, fileName(entry.key)), { force: true });
    this.deps.onChange?.(this.entries.size);
  }
}
