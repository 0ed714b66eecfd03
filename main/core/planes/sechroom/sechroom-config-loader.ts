import { errorText } from '../../../../shared/errors';
import { backoffDelay } from '../../base/backoff';
import type { Clock, Logger, TimerHandle } from '../../base/ports';
import { loadSechroomConfig, saveSechroomConfig, type SechroomProfileConfig } from './sechroom-config';

const RETRY = { baseMs: 1_000, capMs: 60_000 };

export interface ConfigLoaderDeps {
  dir: string;
  /** Settings handed in at start (a fleet file, the command line): used at once, saved when the folder lets us. */
  initial?: SechroomProfileConfig | undefined;
  clock: Clock;
  log: Logger;
  random?: () => number;
  /** A retry got through: the settings read (null: none yet), or the handed-in ones now saved. */
  recovered(config: SechroomProfileConfig | null): void;
}

/**
 * A Sechroom profile's settings file, read (or written, for handed-in settings) at start. A
 * folder that fails (read-only, full, gone) is not the end of it: the read or write is tried
 * again with backoff until it works, and the session hears when it did, so a transient fault
 * never leaves the profile unusable until a restart. Handed-in settings are used meanwhile.
 */
export class SechroomConfigLoader {
  private timer: TimerHandle | null = null;
  private failures = 0;

  constructor(private readonly deps: ConfigLoaderDeps) {}

  static for(session: Pick<ConfigLoaderDeps, 'dir' | 'initial' | 'clock' | 'log' | 'random'>, recovered: ConfigLoaderDeps['recovered']): SechroomConfigLoader {
    const { dir, initial, clock, log, random } = session;
    return new SechroomConfigLoader({ dir, clock, log, recovered, ...(initial ? { initial } : {}), ...(random ? { random } : {}) });
  }

  /** The settings to start with, and the problem that stops them from being used (retried meanwhile). */
  async load(): Promise<{ config: SechroomProfileConfig | null; problem: string | null }> {
    const outcome = await this.attempt();
    if (outcome.ok) return { config: outcome.config, problem: null };
    this.retryLater(outcome.problem);
    // Handed-in settings work from memory; only a file we could not read leaves nothing to use.
    return this.deps.initial ? { config: this.deps.initial, problem: null } : { config: null, problem: outcome.problem };
  }

  /** No more retries (a stop, or new settings that replace these). */
  stop(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private async attempt(): Promise<{ ok: true; config: SechroomProfileConfig | null } | { ok: false; problem: string }> {
    try {
      if (this.deps.initial) {
        await saveSechroomConfig(this.deps.dir, this.deps.initial);
        return { ok: true, config: this.deps.initial };
      }
      return { ok: true, config: await loadSechroomConfig(this.deps.dir) };
    } catch (error) {
      return { ok: false, problem: errorText(error) };
    }
  }

  private retryLater(problem: string): void {
    const delay = backoffDelay(this.failures++, RETRY, this.deps.random);
    const what = this.deps.initial ? 'could not be saved' : 'cannot be used';
    this.deps.log.error(`the Sechroom settings of this profile ${what}: ${problem} (trying again in ${Math.round(delay / 1000)} s)`);
    this.stop();
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      void this.attempt().then((outcome) => {
        if (!outcome.ok) return this.retryLater(outcome.problem);
        this.failures = 0;
        this.deps.log.info('the Sechroom settings of this profile work again');
        this.deps.recovered(outcome.config);
      });
    }, delay);
  }
}
