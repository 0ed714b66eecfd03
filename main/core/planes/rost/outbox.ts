import { z } from 'zod';
import { ResultRequestSchema, UnitKindSchema } from '../../../../shared/protocol';
import type { RunnerConnector, RunnerCredentials } from './connector';
import { ConnectorError, isConnectorError } from '../../connectors/errors';
import type { Clock, Logger } from '../../base/ports';
import { DurableOutbox, type DeliveryTry } from '../../sessions/durable-outbox';
import { errorText } from '../../../../shared/errors';

export const OutboxEntrySchema = z.object({
  runnerId: z.string().min(1),
  unit: z.object({ id: z.string().min(1), kind: UnitKindSchema }),
  result: ResultRequestSchema.extend({ idempotency_key: z.string().min(1) }),
  enqueuedAt: z.string(),
  attempts: z.number().int().min(0),
});
export type OutboxEntry = z.infer<typeof OutboxEntrySchema>;

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

type Target = { connector: RunnerConnector; credentials: RunnerCredentials };
type Fate = { state: 'waiting'; error: string } | { state: 'delivered'; outcome: 'accepted' | 'already_recorded' } | { state: 'refused'; reason: string };

/**
 * A finished unit's result, kept in the durable outbox (sessions/durable-outbox.ts) until
 * the control plane has it (200, or 409 already recorded). Its delivery starts beside the
 * write: a crash before the file is down loses nothing, as the running journal still names
 * the unit and the restart reports it under the same idempotency key.
 */
export class ResultOutbox extends DurableOutbox<OutboxEntry, Target> {
  constructor(private readonly deps: OutboxDeps) {
    super({
      dir: deps.dir,
      schema: OutboxEntrySchema,
      keyOf: (entry) => entry.result.idempotency_key,
      noun: 'an outbox entry',
      retryLine: 'result delivery failed; will retry',
      clock: deps.clock,
      log: deps.log,
      ...(deps.random ? { random: deps.random } : {}),
      courier: { target: () => deps.target(), deliver: (entry, target) => this.deliver(entry, target) },
      deliverBesideWrite: true,
      ...(deps.onChange ? { onChange: deps.onChange } : {}),
    });
  }

  /** Resolves once the entry is on disk; its delivery starts at once, beside the write. */
  override enqueue(entry: Omit<OutboxEntry, 'attempts' | 'enqueuedAt'>): Promise<void> {
    return super.enqueue({ ...entry, attempts: 0, enqueuedAt: new Date(this.deps.clock.now()).toISOString() });
  }

  /**
   * One try. A result that fails on its own (a 5xx for it) is retried later but does not
   * hold back the others behind it; an unreachable control plane ends the pass at once.
   */
  private async deliver(entry: OutboxEntry, target: Target): Promise<DeliveryTry> {
    if (entry.runnerId !== target.credentials.runnerId) {
      this.deps.log.warn('dropping a result for a runner this machine no longer is', { unit: entry.unit.id });
      return { outcome: 'dropped' };
    }
    try {
      this.deps.beforeReport?.(entry.result.idempotency_key);
      const outcome = await target.connector.report(target.credentials, entry.unit, entry.result);
      this.deps.log.info(outcome === 'accepted' ? 'result delivered' : 'result was already recorded', { unit: entry.unit.id, status: entry.result.status });
      return { outcome: 'delivered', after: () => this.tell(entry, { state: 'delivered', outcome }) };
    } catch (error) {
      entry.attempts++;
      const message = errorText(error);
      if (isConnectorError(error, 'unauthorized')) {
        this.tell(entry, { state: 'waiting', error: 'the control plane refused our credentials' });
        // Nothing can be delivered with these credentials; wait for a good heartbeat.
        this.deps.onRevoked();
        return { outcome: 'suspend' };
      }
      if (isPermanent(error)) {
        // The server will never take it (e.g. 400 for a unit it no longer knows): keep the
        // evidence in the log, stop retrying it.
        this.deps.log.error('the control plane refused a result; giving up on it', { unit: entry.unit.id, error: (error as Error).message });
        return { outcome: 'dropped', after: () => this.tell(entry, { state: 'refused', reason: refusalReason(error) }) };
      }
      this.tell(entry, { state: 'waiting', error: message });
      const holdsOthers = isConnectorError(error, 'network') || isConnectorError(error, 'timeout');
      return { outcome: 'retry', holdsOthers, details: { unit: entry.unit.id, error: message } };
    }
  }

  private tell(entry: OutboxEntry, fate: Fate): void {
    this.deps.onDelivery?.({
      key: entry.result.idempotency_key,
      unitId: entry.unit.id,
      attempts: entry.attempts + (fate.state === 'delivered' ? 1 : 0),
      enqueuedAt: entry.enqueuedAt,
      ...fate,
    });
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
