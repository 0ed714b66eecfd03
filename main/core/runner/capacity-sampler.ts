import type { HostEvent } from '../../../shared/contract';
import { SAMPLE_PERIOD_MS } from '../../../shared/telemetry';
import type { Clock, TimerHandle } from '../base/ports';
import type { CapacityHistory } from './telemetry';

export interface CapacitySamplerDeps {
  clock: Clock;
  history: CapacityHistory;
  /** The machine's turns now, over every profile, and the machine-wide cap. */
  sessions(): { active: number; max: number };
  emit(event: HostEvent): void;
  /** How often to sample while no window watches: the shortest heartbeat interval, so each heartbeat reports a fresh reading. */
  idlePeriodMs(): number;
}

/**
 * The machine's capacity readings: every 5 s while a window shows them live (the charts),
 * otherwise once per heartbeat period, so an unwatched host (a server, a closed window)
 * wakes for telemetry no more often than it heartbeats. Every profile's heartbeat reports
 * the latest reading.
 */
export class CapacitySampler {
  private timer: TimerHandle | null = null;
  private running = false;
  private watchers = 0;

  constructor(private readonly deps: CapacitySamplerDeps) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.sample();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.clearTimer();
  }

  /**
   * A window shows the live figures until the returned release is called: samples come
   * every 5 s meanwhile, starting now. Releasing twice is harmless.
   */
  watch(): () => void {
    this.watchers++;
    if (this.watchers === 1 && this.running) {
      this.clearTimer();
      this.sample();
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.watchers--;
      if (this.watchers === 0 && this.running) this.schedule();
    };
  }

  private sample(): void {
    const reading = this.deps.history.sample(this.deps.clock.now(), this.deps.sessions());
    this.deps.emit({ event: 'telemetry:sample', payload: reading });
    this.schedule();
  }

  private schedule(): void {
    this.clearTimer();
    if (!this.running) return;
    const period = this.watchers > 0 ? SAMPLE_PERIOD_MS : Math.max(SAMPLE_PERIOD_MS, this.deps.idlePeriodMs());
    this.timer = this.deps.clock.setTimeout(() => {
      this.timer = null;
      this.sample();
    }, period);
  }

  private clearTimer(): void {
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}
