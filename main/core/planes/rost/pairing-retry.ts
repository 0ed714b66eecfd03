import { backoffDelay, type BackoffPolicy } from '../../base/backoff';
import type { Clock, TimerHandle } from '../../base/ports';
import { ConnectorError } from '../../connectors/errors';

/** How pairing (and a state-file takeover) waits between attempts while the control plane cannot be reached. */
export const PAIRING_RETRY_POLICY: BackoffPolicy = { baseMs: 2_000, capMs: 60_000 };

/** What the state says while an attempt waits for its next try. */
export interface RetryNotice {
  lastError: string;
  nextAttemptAt: string;
  attempts: number;
}

/** A transport failure (refused, timed out, a 5xx, an answer that does not parse) is worth another try; a denied or bad code is not. */
export function isTransportFailure(error: unknown): error is ConnectorError {
  return error instanceof ConnectorError && error.retryable;
}

/** The attempt was canceled while it waited for its next try. */
export class RetryCanceled extends Error {
  constructor() {
    super('canceled');
    this.name = 'RetryCanceled';
  }
}

export interface RetryingAttemptDeps {
  clock: Clock;
  random?: () => number;
  policy?: BackoffPolicy;
  /** Which failures are worth another try (default: transport failures). */
  retryable?: (error: unknown) => boolean;
  /** What a failure says in the state. */
  describe?: (error: unknown) => string;
  onRetrying(notice: RetryNotice): void;
}

/**
 * Runs an attempt until it works or fails for a reason a retry cannot fix, waiting with
 * capped, jittered backoff between tries. `now()` ends the wait at once; `cancel()` ends
 * it with RetryCanceled. One attempt at a time: a new `run` cancels the previous one.
 */
export class RetryingAttempt {
  private timer: TimerHandle | null = null;
  private wake: ((go: boolean) => void) | null = null;
  private generation = 0;

  constructor(private readonly deps: RetryingAttemptDeps) {}

  /** Waiting for the next try (what `now()` would cut short). */
  get waiting(): boolean {
    return this.wake !== null;
  }

  /** `failedFirst`: the first try was made already and failed so (the tries start with a wait). */
  async run<T>(attempt: () => Promise<T>, failedFirst?: { error: unknown }): Promise<T> {
    this.cancel();
    const generation = this.generation;
    const retryable = this.deps.retryable ?? isTransportFailure;
    const describe = this.deps.describe ?? ((error: unknown) => (error instanceof Error ? error.message : String(error)));
    for (let attempts = 1; ; attempts++) {
      try {
        if (attempts === 1 && failedFirst) throw failedFirst.error;
        return await attempt();
      } catch (error) {
        if (generation !== this.generation) throw new RetryCanceled();
        if (!retryable(error)) throw error;
        const delay = backoffDelay(attempts - 1, this.deps.policy ?? PAIRING_RETRY_POLICY, this.deps.random);
        this.deps.onRetrying({ lastError: describe(error), nextAttemptAt: new Date(this.deps.clock.now() + delay).toISOString(), attempts });
        if (!(await this.wait(delay)) || generation !== this.generation) throw new RetryCanceled();
      }
    }
  }

  /** Makes the waiting attempt now; false when none waits. */
  now(): boolean {
    return this.release(true);
  }

  cancel(): void {
    this.generation++;
    this.release(false);
  }

  private wait(delayMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = this.deps.clock.setTimeout(() => this.release(true), delayMs);
    });
  }

  private release(go: boolean): boolean {
    const wake = this.wake;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    this.wake = null;
    wake?.(go);
    return wake !== null;
  }
}
