import { errorText } from '../../../../shared/errors';
import type { Clock, Logger } from '../../base/ports';
import type { AdmissionPort, RootReadyPort } from './turn-runner';

export type GateState = { state: 'live' } | { state: 'paused' } | { state: 'deferred'; reason: string };

export interface ClaimGatesDeps {
  admission?: AdmissionPort | undefined;
  root?: RootReadyPort | undefined;
  clock: Clock;
  log: Logger;
  pollMs: number;
  paused(): boolean;
  onChange(state: GateState): void;
}

/**
 * What must hold before each claim (seed B6.5 steps 1–2), in order: not paused by the
 * operator, admission by the usage account (the seed's ADMISSION DEFERRED / recovered lines
 * on each change), and a ready root. A check that throws defers rather than ending the loop.
 */
export class ClaimGates {
  private deferred = false;
  private pausedShown = false;

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
}
