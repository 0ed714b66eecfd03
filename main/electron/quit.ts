import type { Logger } from '../core/base/ports';
import type { AppApi, PreventableEvent } from './electron-api';
import { errorText } from '../../shared/errors';

export interface QuitSequenceOptions {
  app: Pick<AppApi, 'quit'>;
  /** Quits the core (its policy drains running turns) and then the shell; `canceled`: "Don't quit". */
  stop: () => Promise<'stopped' | 'canceled'>;
  /** A backstop only: the core bounds its own drain; this bounds a core that hangs. */
  limitMs: () => number;
  log: () => Logger | null;
  setTimer?: (fn: () => void, ms: number) => { unref?: () => void };
  clearTimer?: (timer: unknown) => void;
}

/**
 * Every way out (tray Quit, Cmd+Q, the OS logging out, a signal) goes through Electron's
 * `before-quit`. The first one is held while the core shuts down, then the quit is let
 * through; further quit requests during the wait are absorbed, not doubled.
 */
export class QuitSequence {
  private state: 'running' | 'stopping' | 'done' = 'running';

  constructor(private readonly options: QuitSequenceOptions) {}

  get stopping(): boolean {
    return this.state !== 'running';
  }

  onBeforeQuit(event: PreventableEvent): void {
    if (this.state === 'done') return;
    event.preventDefault();
    if (this.state === 'stopping') return;
    this.state = 'stopping';
    this.options.log()?.info('quitting: stopping the core');
    void this.stopWithinLimit().then((outcome) => {
      if (outcome === 'canceled') {
        // The operator called the quit off while the turns ran: keep running.
        this.state = 'running';
        this.options.log()?.info('quitting: called off');
        return;
      }
      this.state = 'done';
      this.options.app.quit();
    });
  }

  private async stopWithinLimit(): Promise<'stopped' | 'canceled'> {
    const setTimer = this.options.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
    const clearTimer = this.options.clearTimer ?? ((t) => clearTimeout(t as ReturnType<typeof setTimeout>));
    let timer: unknown = null;
    const limitMs = this.options.limitMs();
    const limit = new Promise<'timeout'>((resolve) => {
      const t = setTimer(() => resolve('timeout'), limitMs);
      t.unref?.();
      timer = t;
    });
    try {
      const outcome = await Promise.race([this.options.stop(), limit]);
      if (outcome === 'timeout') this.options.log()?.warn('quitting: the core did not stop in time; quitting anyway', { limitMs });
      return outcome === 'canceled' ? 'canceled' : 'stopped';
    } catch (error) {
      this.options.log()?.error('quitting: stopping failed; quitting anyway', { error: errorText(error) });
      return 'stopped';
    } finally {
      clearTimer(timer);
    }
  }
}
