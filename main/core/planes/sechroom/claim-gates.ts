import { errorText } from '../../../../shared/errors';
import type { Clock, Logger } from '../../base/ports';
import type { StoragePort } from '../../sessions/storage-health';
import type { AdmissionPort, RootReadyPort } from './turn-runner';

export type GateState = { state: 'live' } | { state: 'paused' } | { state: 'deferred'; reason: string } | { state: 'cannot_write'; reason: string };

export interface ClaimGatesDeps {
  admission?: AdmissionPort | undefined;
  root?: RootReadyPort | undefined;
  /** The folders a claim writes (the outbox, the in-flight journal, the turn folders) take a write. */
  storage?: StoragePort | undefined;
  clock: Clock;
  log: Logger;
  pollMs: number;
  paused(): boolean;
  onChange(state: GateState): void;
}

/**
 * What must hold before each claim (seed B6.5 steps 1–2), in order: not paused by the
 * operator, data folders that take a write (nothing is claimed that could not be run),
 * admission by the usage account (the seed's ADMISSION DEFERRED / recovered lines
 * on each change), and a ready root. A check that throws defers rather than ending the loop.
 */
export class ClaimGates {
  private deferred = false;
  private pausedShown = false;
  private cannotWrite = false;

  constructor(private readonly deps: ClaimGatesDeps) {}

  /** Null: claim now. Otherwise how long to wait before asking again. */
  async wait(): Promise<number | null> {
    const { deps } = this;
    if (deps.paused()) {
      if (!this.pausedShown) deps.onChange({ state: 'paused' });
      this.pausedShown = true;
      return deps.pollMs;
    }
    if (this.pausedShown) {
      this.pausedShown = false;
      deps.onChange({ state: 'live' });
    }
    if (deps.storage) {
      const wait = await this.storageWait(deps.storage);
      if (wait !== null) return wait;
    }
    if (deps.admission) {
      const admission = await deps.admission
        .check()
        .catch((error: unknown) => ({ ok: false as const, reason: `admission check failed: ${errorText(error)}`, retryAt: null }));
      if (!admission.ok) {
        if (!this.deferred) deps.log.warn(`ADMISSION DEFERRED — not claiming: ${admission.reason}`);
        this.deferred = true;
        deps.onChange({ state: 'deferred', reason: admission.reason });
        const until = admission.retryAt ? Math.max(0, admission.retryAt - deps.clock.now()) : Infinity;
        return Math.min(until, deps.pollMs);
      }
      if (this.deferred) {
        this.deferred = false;
        deps.log.info('admission recovered — resuming claims');
        deps.onChange({ state: 'live' });
      }
    }
    if (deps.root) {
      const ready = await deps.root.check().catch((error: unknown) => ({ ok: false as const, reason: `root check failed: ${errorText(error)}` }));
      if (!ready.ok) {
        deps.log.warn(`root not ready — not claiming: ${ready.reason}`);
        return deps.pollMs;
      }
    }
    return null;
  }

  /** Null while the folders take a write; else the poll (the health retries on its own backoff meanwhile). */
  private async storageWait(storage: StoragePort): Promise<number | null> {
    if (await storage.check()) {
      if (this.cannotWrite) {
        this.cannotWrite = false;
        this.deps.log.info('the data folder takes writes again — resuming claims');
        this.deps.onChange({ state: 'live' });
      }
      return null;
    }
    const reason = storage.reason ?? 'the data folder cannot be written';
    if (!this.cannotWrite) this.deps.log.warn(`not claiming: ${reason}`);
    this.cannotWrite = true;
    this.deps.onChange({ state: 'cannot_write', reason });
    return this.deps.pollMs;
  }
}
