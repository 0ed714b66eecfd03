import { errorText } from '../../../shared/errors';
import { isConnectorError } from '../connectors/errors';
import type { Clock, Logger, TimerHandle } from '../base/ports';
import { backoffDelay } from '../base/backoff';
import type { MachineSlots } from './machine-slots';

export interface ClaimOptions {
  interactiveOnly: boolean;
  waitMs?: number;
  signal?: AbortSignal;
}

/** `W` is what a claim brings: the plane's own unit of work (the kit never looks inside it). */
export interface ClaimLoopDeps<W = unknown> {
  clock: Clock;
  log: Logger;
  random?: () => number;
  profile: string;
  machine: MachineSlots;
  /** The profile's own cap (maxSessions). */
  maxSessions(): number;
  /** Why the profile may not claim now (paused, quitting, not paired, no ready runtime, usage), or null. */
  blocked(): string | null;
  /** The long-poll limit the last heartbeat offered, or null (then the seed's cadence). */
  longPollMaxMs(): number | null;
  interactiveClaimMs(): number;
  claim(options: ClaimOptions): Promise<W | null>;
  /** Runs a claimed unit to its end (never rejects); `slotFree` may come earlier: the runtime is done, the rest is bookkeeping. */
  launch(unit: W, slotFree?: () => void): Promise<void>;
  /** A 401 on a claim. */
  revoked(): void;
  /**
   * [v1] Holds one read for the plane's cancel notices alone, for as long as the plane holds it or
   * until `signal` aborts: the loop asks for it while turns run and no claim is held (every slot
   * busy, or claiming blocked). 'unsupported': the plane offers none (the lease heartbeat carries
   * cancels then); 'failed': the read failed (the loop backs off).
   */
  watchNotices?(signal: AbortSignal): Promise<'ok' | 'failed' | 'unsupported'>;
}

/** How a loop claims: `adaptive` (long-poll when offered, claim the moment a slot frees) or `seed` (serial, for the benchmark). */
export interface ClaimStrategy {
  start(): void;
  /** Stops claiming (turns under way go on) and resolves when the loop has ended. */
  stop(): Promise<void>;
  /** Something that gates claiming changed (pause, settings, readiness, usage, quit): look again. */
  nudge(): void;
  /** A good heartbeat: the seed claims in full right after one. */
  heartbeat(): void;
}

const CLAIM_BACKOFF = { baseMs: 1_000, capMs: 60_000 };

type WakeOn = 'nudge' | 'beat' | 'none';

/** What the two loops share: waiting (woken by a nudge, a beat or the stop) and one claim with its backoff. */
export abstract class ClaimLoopBase<W = unknown> implements ClaimStrategy {
  protected running = false;
  protected fullClaimDue = false;
  private abort = new AbortController();
  private readonly waiters = new Map<() => void, WakeOn>();
  private failures = 0;
  private done: Promise<void> = Promise.resolve();
  private stopped: () => void = () => {};
  private whenStopped: Promise<void> = Promise.resolve();

  constructor(protected readonly deps: ClaimLoopDeps<W>) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.abort = new AbortController();
    this.whenStopped = new Promise((resolve) => (this.stopped = resolve));
    this.done = this.run().catch((error: unknown) => this.deps.log.error('the claim loop stopped on an error', { error: errorText(error) }));
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopped();
    this.interrupt();
    await this.done;
  }

  nudge(): void {
    // A claim under way (a long-poll) is called off when claiming is no longer allowed.
    if (this.deps.blocked()) this.interrupt();
    this.wake(['nudge']);
  }

  heartbeat(): void {
    this.fullClaimDue = true;
    this.wake(['nudge', 'beat']);
  }

  protected abstract run(): Promise<void>;

  protected get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Waits `ms` (null: no limit) or until woken: `nudge` by any nudge or beat, `beat` by a beat only, `none` by the stop only. */
  protected wait(ms: number | null, wakeOn: WakeOn = 'nudge'): Promise<void> {
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      let timer: TimerHandle | null = null;
      const done = () => {
        if (timer !== null) this.deps.clock.clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      if (signal.aborted) return resolve();
      if (ms !== null) timer = this.deps.clock.setTimeout(done, ms);
      this.waiters.set(done, wakeOn);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Runs `work` until it ends; a wake (a nudge, a beat) or the stop aborts its signal. */
  protected async whileWaiting<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const woken = new AbortController();
    const loop = this.abort.signal;
    const wake = () => woken.abort();
    this.waiters.set(wake, 'nudge');
    loop.addEventListener('abort', wake, { once: true });
    if (loop.aborted) woken.abort();
    try {
      return await work(woken.signal);
    } finally {
      this.waiters.delete(wake);
      loop.removeEventListener('abort', wake);
    }
  }

  /** Waits for `work`, or less when the loop stops (the work goes on by itself). */
  protected async until(work: Promise<void>): Promise<void> {
    await Promise.race([work, this.whenStopped]);
  }

  /** One claim; never throws. A failure says how long to back off. */
  protected async claimOnce(options: ClaimOptions): Promise<{ unit: W | null; retryInMs: number | null }> {
    try {
      const unit = await this.deps.claim(options);
      this.failures = 0;
      return { unit, retryInMs: null };
    } catch (error) {
      if (options.signal?.aborted) return { unit: null, retryInMs: null };
      if (isConnectorError(error, 'unauthorized')) {
        this.deps.revoked();
        return { unit: null, retryInMs: null };
      }
      const retryInMs = backoffDelay(this.failures++, CLAIM_BACKOFF, this.deps.random);
      this.deps.log.warn('claim failed; backing off', { error: errorText(error), retryInMs });
      return { unit: null, retryInMs };
    }
  }

  private interrupt(): void {
    const abort = this.abort;
    this.abort = new AbortController();
    abort.abort();
  }

  private wake(kinds: WakeOn[]): void {
    for (const [waiter, on] of [...this.waiters]) if (kinds.includes(on)) waiter();
  }
}

/**
 * A profile's one claim loop, read top to bottom: a free slot of its own → not paused and
 * ready → (without a long-poll, the seed's cadence) → a slot of the machine → claim →
 * launch, the slots going with the turn and coming back when it ends.
 */
export class ClaimLoop<W = unknown> extends ClaimLoopBase<W> {
  private turns = 0;
  /** The last claim brought a unit: ask again at once (the server may have more). */
  private burst = false;
  private noticeFailures = 0;

  protected async run(): Promise<void> {
    while (this.running) {
      if (this.turns >= this.deps.maxSessions() || this.deps.blocked()) {
        await this.idle();
        continue;
      }
      const longPollMs = this.deps.longPollMaxMs();
      if (longPollMs === null && !this.burst && !this.fullClaimDue) {
        await this.wait(this.deps.interactiveClaimMs());
        if (!this.running || this.turns >= this.deps.maxSessions() || this.deps.blocked()) continue;
      }
      const signal = this.signal;
      const release = await this.deps.machine.acquire(this.deps.profile, signal);
      if (!release) continue;
      if (this.deps.blocked() || signal.aborted) {
        release();
        continue;
      }
      const full = longPollMs !== null || this.fullClaimDue;
      this.fullClaimDue = false;
      const claimed = await this.claimOnce({ interactiveOnly: !full, ...(longPollMs !== null ? { waitMs: longPollMs } : {}), signal });
      this.burst = claimed.unit !== null;
      if (claimed.unit) this.launch(claimed.unit, release);
      else {
        release();
        if (claimed.retryInMs !== null) await this.wait(claimed.retryInMs, 'none');
      }
    }
  }

  /**
   * No claim now: wait to be woken. While turns run no held claim would hear the plane cancel
   * one, so a read for cancel notices alone is held meanwhile [v1] (one at a time, each as long
   * as the plane holds it); without it, the lease heartbeat brings the cancel.
   */
  private async idle(): Promise<void> {
    const watch = this.deps.watchNotices;
    if (!watch || this.turns === 0) return this.wait(null);
    const outcome = await this.whileWaiting((signal) => watch(signal));
    if (outcome === 'unsupported') return this.wait(null);
    if (outcome === 'ok') {
      this.noticeFailures = 0;
      return;
    }
    await this.wait(backoffDelay(this.noticeFailures++, CLAIM_BACKOFF, this.deps.random));
  }

  private launch(unit: W, release: () => void): void {
    this.turns++;
    let freed = false;
    // The slot comes back the moment the runtime is done (or at the latest when the turn ends), and the loop looks again.
    const free = () => {
      if (freed) return;
      freed = true;
      this.turns--;
      release();
      this.nudge();
    };
    // Without a long-poll a claim sent before the result lands finds the server still counting the unit (an empty
    // answer, then a wait of the interactive interval): then the slot comes back at the turn's end.
    const early = () => {
      if (this.deps.longPollMaxMs() !== null) free();
    };
    void this.deps.launch(unit, early).finally(free);
  }
}
