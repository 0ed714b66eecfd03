import { errorText } from '../../shared/errors';
import type { Clock, Logger, TimerHandle } from './base/ports';

export type QuitMode = 'after-turns' | 'now';

/** How a quit ended: the core stopped (with what happened to the turns), or the operator called it off. */
export type QuitOutcome = { kind: 'stopped'; finished: number; canceled: number; undelivered: number } | { kind: 'canceled' };

/** How long a second Ctrl-C stops now rather than only asking again. */
export const SECOND_INTERRUPT_MS = 3000;

/** What a Ctrl-C (or a supervisor's signal) did; `active` counts every profile's turns. */
export type Interrupt =
  { kind: 'drain'; active: number; limitMs: number } | { kind: 'still-draining'; active: number; remainingMs: number } | { kind: 'now' } | { kind: 'stopping' };

export interface QuitPolicyDeps {
  clock: Clock;
  log: Logger;
  work: {
    readonly activeCount: number;
    holdClaims(): void;
    releaseClaims(): void;
    cancelAll(reason: string): number;
    whenIdle(): Promise<void>;
  };
  /** Tells the status (and through the heartbeat, the control plane) that a quit is under way. */
  setStopping(stopping: { deadline: number; mode: QuitMode } | null): void;
  /** The drain limit (the quitDrainMs setting, or RUNNER_TRAY_QUIT_DRAIN_MS). */
  drainLimitMs(): number;
  /** Stops the core for good once nothing runs: results flushed, services stopped, logs closed. */
  shutdown(): Promise<void>;
  /** Results still waiting for delivery when the core stopped. */
  undelivered(): number;
}

/**
 * The one quit policy every way out goes through: the tray's Quit items, Electron's
 * before-quit, the headless host's SIGINT/SIGTERM, the window's "Stop after the running
 * turns" and "Stop now". `after-turns` takes no new work and waits up to the drain limit
 * for the running turns, then cancels what is left; `now` cancels them at once. Either
 * way every result is queued durably and a delivery is tried before the core stops.
 */
export class QuitPolicy {
  private phase: 'running' | 'draining' | 'stopping' | 'stopped' = 'running';
  private mode: QuitMode = 'after-turns';
  private deadlineTimer: TimerHandle | null = null;
  private wake: (() => void) | null = null;
  private outcome: Promise<QuitOutcome> | null = null;
  private canceled = 0;
  private startedWith = 0;
  private deadline = 0;
  private lastInterrupt: number | null = null;
  private readonly listeners = new Set<(mode: QuitMode) => void>();

  constructor(private readonly deps: QuitPolicyDeps) {}

  /** Whether a quit is under way (or done). */
  get quitting(): boolean {
    return this.phase !== 'running';
  }

  /** Called once when a quit begins, whoever asked: shells use it to exit when the core is done. */
  onQuit(listener: (mode: QuitMode) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Asks to quit; resolves when the core has stopped (or the quit was called off).
   * Asking again joins the quit under way; `now` during a wait cancels the running turns.
   */
  quit(mode: QuitMode): Promise<QuitOutcome> {
    if (this.phase === 'running') {
      this.phase = 'draining';
      this.mode = mode;
      this.startedWith = this.deps.work.activeCount;
      this.outcome = this.run();
      for (const listener of [...this.listeners]) listener(mode);
    } else if (mode === 'now' && this.phase === 'draining' && this.mode !== 'now') {
      this.mode = 'now';
      this.deps.log.info('quit: stop now requested; canceling the running turns');
      this.wake?.();
    }
    return this.outcome!;
  }

  /**
   * A Ctrl-C: the first drains; another within SECOND_INTERRUPT_MS stops now, a later one
   * says what the quit still waits for and arms the next. After "Keep running" the next
   * one drains again.
   */
  interrupt(): Interrupt {
    const now = this.deps.clock.now();
    const active = this.deps.work.activeCount;
    if (this.phase === 'running') {
      this.lastInterrupt = now;
      void this.quit('after-turns');
      return { kind: 'drain', active, limitMs: this.deps.drainLimitMs() };
    }
    if (this.phase !== 'draining' || this.mode === 'now') return { kind: 'stopping' };
    const last = this.lastInterrupt;
    this.lastInterrupt = now;
    if (last !== null && now - last < SECOND_INTERRUPT_MS) {
      void this.quit('now');
      return { kind: 'now' };
    }
    return { kind: 'still-draining', active, remainingMs: Math.max(0, this.deadline - now) };
  }

  /** "Don't quit": only while waiting for running turns to finish; claiming resumes. */
  cancel(): boolean {
    if (this.phase !== 'draining' || this.mode === 'now') return false;
    this.phase = 'running';
    this.lastInterrupt = null;
    this.clearDeadline();
    this.deps.work.releaseClaims();
    this.deps.setStopping(null);
    this.deps.log.info('quit called off; taking work again');
    const wake = this.wake;
    this.wake = null;
    wake?.();
    return true;
  }

  private async run(): Promise<QuitOutcome> {
    const { deps } = this;
    deps.work.holdClaims();
    const limit = deps.drainLimitMs();
    const deadline = deps.clock.now() + (this.mode === 'now' ? 0 : limit);
    this.deadline = deadline;
    deps.setStopping({ deadline, mode: this.mode });
    if (deps.work.activeCount > 0) {
      deps.log.info('quit: waiting for the running turns', { active: deps.work.activeCount, limitMs: this.mode === 'now' ? 0 : limit, mode: this.mode });
      const reason = await this.waitForTurns(deadline);
      if (reason === 'called-off') return { kind: 'canceled' };
      if (deps.work.activeCount > 0) {
        deps.setStopping({ deadline, mode: 'now' });
        this.canceled = deps.work.cancelAll(reason === 'limit' ? 'the runner is quitting (the drain limit passed)' : 'the runner was stopped');
        deps.log.warn('quit: canceled running turns', { canceled: this.canceled, why: reason });
        await deps.work.whenIdle();
      }
    }
    this.phase = 'stopping';
    this.clearDeadline();
    try {
      await deps.shutdown();
    } catch (error) {
      // Nothing is left to save but the log line: the shell exits anyway.
      deps.log.error('quit: stopping the core failed', { error: errorText(error) });
    }
    this.phase = 'stopped';
    return { kind: 'stopped', finished: Math.max(0, this.startedWith - this.canceled), canceled: this.canceled, undelivered: deps.undelivered() };
  }

  /** Resolves when the turns are done, the limit passes, "now" is asked, or the quit is called off. */
  private waitForTurns(deadline: number): Promise<'idle' | 'limit' | 'now' | 'called-off'> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (why: 'idle' | 'limit' | 'now' | 'called-off') => {
        if (settled) return;
        settled = true;
        this.wake = null;
        resolve(why);
      };
      this.wake = () => finish(this.phase === 'running' ? 'called-off' : 'now');
      if (this.mode === 'now') return finish('now');
      this.deadlineTimer = this.deps.clock.setTimeout(() => finish('limit'), Math.max(0, deadline - this.deps.clock.now()));
      void this.deps.work.whenIdle().then(() => {
        // Idle after a "Don't quit" is no reason to stop.
        if (this.phase === 'draining') finish('idle');
      });
    });
  }

  private clearDeadline(): void {
    if (this.deadlineTimer !== null) this.deps.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
  }
}
