import { errorText } from '../../../shared/errors';
import { CommandFailure } from '../base/dispatch';
import type { RunnerSnapshot } from '../../../shared/runner';
import type { Clock, Logger, TimerHandle } from '../base/ports';
import type { RunnerStateStore } from './runner-state-store';

export interface Pause {
  until: number | null;
  at: number;
  by: 'you';
  note: string | null;
}

export interface PauseStateDeps {
  clock: Clock;
  log: Logger;
  state: RunnerStateStore;
  /** After a pause begins or ends (a timed one ending included). */
  onChange(paused: boolean): void;
  /** The state file could not be written (the data folder's health hears of it). */
  onSaveFailed?(error: unknown): void;
}

/** A profile's pause: kept in its state file so a restart keeps it; a timed one ends by itself. */
export class PauseState {
  private paused: Pause | null = null;
  private timer: TimerHandle | null = null;

  constructor(private readonly deps: PauseStateDeps) {}

  get current(): Pause | null {
    return this.paused;
  }

  /** A pause from before the restart holds; a timed one that ended while we were off is over. */
  restore(): void {
    const saved = this.deps.state.get().pause;
    if (!saved) return;
    const until = saved.until === null ? null : Date.parse(saved.until);
    if (until !== null && until <= this.deps.clock.now()) {
      this.deps.log.info('a timed pause ended while the runner was off; resuming', { until: saved.until });
      void this.persist().catch(() => undefined);
      return;
    }
    this.apply({ until, at: Date.parse(saved.at), by: saved.by, note: saved.note });
    this.deps.log.info('still paused from before the restart', { until: saved.until ?? 'until resumed' });
  }

  async pause(minutes: number | null, note: string | null): Promise<void> {
    const now = this.deps.clock.now();
    const until = minutes === null ? null : now + minutes * 60_000;
    this.apply({ until, at: now, by: 'you', note: note?.trim() ? note.trim().slice(0, 500) : null });
    this.deps.log.info('runner paused', { until: until === null ? 'until resumed' : new Date(until).toISOString() });
    this.deps.onChange(true);
    await this.persist();
  }

  /** Ends the pause; false when there was none. Rejects (the change holds for now) when it could not be saved. */
  async resume(): Promise<boolean> {
    this.clearTimer();
    if (!this.paused) return false;
    this.paused = null;
    this.deps.log.info('runner resumed');
    this.deps.onChange(false);
    await this.persist();
    return true;
  }

  stop(): void {
    this.clearTimer();
  }

  view(): RunnerSnapshot['paused'] {
    const p = this.paused;
    return p ? { until: iso(p.until), at: new Date(p.at).toISOString(), by: p.by, note: p.note } : null;
  }

  private apply(pause: Pause): void {
    this.clearTimer();
    this.paused = pause;
    if (pause.until !== null)
      this.timer = this.deps.clock.setTimeout(() => void this.resume().catch(() => undefined), Math.max(0, pause.until - this.deps.clock.now()));
  }

  private clearTimer(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private async persist(): Promise<void> {
    const p = this.paused;
    const record = p ? { at: new Date(p.at).toISOString(), until: iso(p.until), by: p.by, note: p.note } : null;
    try {
      await this.deps.state.update((s) => ({ ...s, pause: record }));
    } catch (error) {
      // The change holds in this process; the operator must hear that a restart will not keep it.
      const what = p ? 'paused' : 'resumed';
      this.deps.log.error(`could not save that the runner is ${what}; it holds until this process ends`, { error: errorText(error) });
      this.deps.onSaveFailed?.(error);
      throw new CommandFailure('not_saved', `The runner is ${what} for now, but that could not be saved, so a restart will not keep it: ${errorText(error)}`);
    }
  }
}

export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
