import { errorText } from '../../../../shared/errors';
import { z } from 'zod';
import { LeaseCompleteInputSchema, RunTelemetryEventSchema } from '../../../../shared/protocol/sechroom';
import type { Clock, Logger } from '../../base/ports';
import { DurableOutbox, type DeliveryTry } from '../../sessions/durable-outbox';
import { isConnectorError, type ConnectorError } from '../../connectors/errors';
import { requestTimeoutMs } from '../../sessions/lease-cadence';
import type { WorkLayerClient } from './work-layer-client';

/*
 * What a Sechroom turn owes the Work Layer once it is over: the completion, then its run
 * telemetry. Written to disk before the first attempt and removed only once the Work Layer
 * has it, in the outbox both planes share (sessions/durable-outbox.ts), so a crash, a restart or an outage
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

/** Completions first: they are what frees the task; telemetry follows its completion. */
const byKind = (entries: SechroomOutboxEntry[]) =>
  entries.sort((a, b) => (a.kind === b.kind ? a.enqueuedAt.localeCompare(b.enqueuedAt) : a.kind === 'complete' ? -1 : 1));

export class SechroomOutbox extends DurableOutbox<SechroomOutboxEntry> {
  constructor(private readonly deps: SechroomOutboxDeps) {
    super({
      dir: deps.dir,
      schema: SechroomOutboxEntrySchema,
      keyOf: (entry) => entry.key,
      noun: 'a Sechroom outbox entry',
      retryLine: 'Sechroom delivery failed; will retry',
      clock: deps.clock,
      log: deps.log,
      ...(deps.random ? { random: deps.random } : {}),
      courier: { target: () => true, deliver: (entry) => this.attempt(entry), order: byKind },
      // While backing off, a new entry goes with the retry already set: a telemetry entry
      // queued behind a failing completion must not cost the Work Layer an extra attempt.
      deliverBesideWrite: false,
      ...(deps.onChange ? { onChange: deps.onChange } : {}),
    });
  }

  /** Durable first: resolves once the entry is on disk (an entry already queued under its key is kept). */
  override async enqueue(entry: NewOutboxEntry): Promise<void> {
    const key = entry.kind === 'complete' ? completionKey(entry.leaseId) : telemetryKey(entry.leaseId);
    if (this.has(key)) return;
    await super.enqueue({ ...entry, key, attempts: 0, enqueuedAt: new Date(this.deps.clock.now()).toISOString() } as SechroomOutboxEntry);
  }

  /** One try of one entry; any failure to retry ends the pass (the Work Layer is one server). */
  private async attempt(entry: SechroomOutboxEntry): Promise<DeliveryTry> {
    try {
      const delivery = await this.deliver(entry);
      return { outcome: 'delivered', after: () => this.deps.onDelivered?.(delivery) };
    } catch (error) {
      entry.attempts++;
      if (isConnectorError(error, 'unauthorized')) {
        this.deps.log.warn('Sechroom delivery is waiting for a new sign-in', { key: entry.key });
        this.deps.onAuthExpired?.(error);
        return { outcome: 'suspend' };
      }
      if (entry.kind === 'complete' && isConnectorError(error) && error.code === 'already_completed') {
        // Completed already (by an earlier attempt of ours with another body, or elsewhere): nothing re-offers.
        this.deps.log.warn(`${entry.memoryId} was already completed; this completion was not recorded`, { leaseId: entry.leaseId });
        return { outcome: 'dropped', after: () => this.deps.onDelivered?.({ kind: 'complete', entry, outcome: 'repeated', completionMemoryId: null }) };
      }
      if (isConnectorError(error) && !error.retryable && error.status !== 408 && error.status !== 429) {
        return { outcome: 'dropped', after: () => this.rejected(entry, error) };
      }
      return { outcome: 'retry', holdsOthers: true, details: { key: entry.key, error: errorText(error) } };
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
}
