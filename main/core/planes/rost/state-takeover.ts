import { errorText } from '../../../../shared/errors';
import type { PairingState } from '../../../../shared/runner';
import type { Clock, Logger } from '../../base/ports';
import { RetryCanceled, RetryingAttempt } from './pairing-retry';
import type { StateImportResult } from './state-import';

type Imported = Extract<StateImportResult, { ok: true }>;

/** A try that failed for a reason a later try may not meet. */
class TransientImportFailure extends Error {}

export interface StateTakeoverDeps {
  clock: Clock;
  log: Logger;
  random?: () => number;
  /** The takeover's state while it waits to try again, and once it ends (null: it worked). */
  onState(state: PairingState | null): void;
  /** A try that worked after the first: the identity is taken over. */
  onImported(result: Imported): Promise<void>;
}

/**
 * Taking over a `rost runner serve` state file (state-import.ts), tried again with backoff
 * when it failed for a reason a later try may not meet (the secret store did not answer);
 * the first try's answer goes to the caller at once, the later ones land in the state.
 */
export class StateTakeover {
  private readonly retry: RetryingAttempt;
  private settledWaiters: (() => void)[] = [];

  constructor(private readonly deps: StateTakeoverDeps) {
    this.retry = new RetryingAttempt({
      clock: deps.clock,
      ...(deps.random ? { random: deps.random } : {}),
      retryable: (error) => error instanceof TransientImportFailure,
      onRetrying: (notice) => this.state({ phase: 'retrying', what: 'import', ...notice }),
    });
  }

  get waiting(): boolean {
    return this.retry.waiting;
  }

  /** The first try's outcome; a transient failure goes on being tried (the state says `retrying`). */
  async start(attempt: () => Promise<StateImportResult>): Promise<StateImportResult> {
    this.retry.cancel();
    const first = await attempt();
    if (first.ok || !first.transient) return first;
    const once = async (): Promise<Imported> => {
      const result = await attempt();
      if (result.ok) return result;
      throw result.transient ? new TransientImportFailure(result.reason) : new Error(result.reason);
    };
    void this.retry.run(once, { error: new TransientImportFailure(first.reason) }).then(
      async (result) => {
        this.deps.log.info('took over the state file on a later try');
        try {
          await this.deps.onImported(result);
          this.state(null);
        } catch (error) {
          this.state({ phase: 'failed', message: errorText(error) });
        }
      },
      (error: unknown) => {
        if (error instanceof RetryCanceled) return;
        this.state({ phase: 'failed', message: errorText(error) });
      },
    );
    return first;
  }

  /** Makes the waiting try at once; resolves once it ended (false when none waited). */
  async retryNow(): Promise<boolean> {
    if (!this.retry.now()) return false;
    await new Promise<void>((resolve) => this.settledWaiters.push(resolve));
    return true;
  }

  /** Ends the tries; true when one was waiting. */
  cancel(): boolean {
    const waiting = this.retry.waiting;
    this.retry.cancel();
    if (waiting) this.state({ phase: 'canceled' });
    return waiting;
  }

  private state(state: PairingState | null): void {
    this.deps.onState(state);
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const waiter of waiters) waiter();
  }
}
