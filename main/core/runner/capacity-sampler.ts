import type { HostEvent } from '../../../shared/contract';
import { SAMPLE_PERIOD_MS } from '../../../shared/telemetry';
import type { Clock, TimerHandle } from '../ports';
import type { CapacityHistory } from './telemetry';

export interface CapacitySamplerDeps {
  clock: Clock;
  history: CapacityHistory;
  /** The machine's turns now, over every profile, and the machine-wide cap. */
  sessions(): { active: number; max: number };
  emit(event: HostEvent): void;
}

/** The machine's capacity readings, one per period: every profile's heartbeat reports the latest. */
export class CapacitySampler {
  private timer: TimerHandle | null = null;
  private running = false;

  constructor(private readonly deps: CapacitySamplerDeps) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.sample();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== null) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private sample(): void {
    const reading = this.deps.history.sample(this.deps.clock.now(), this.deps.sessions());
    this.deps.emit({ event: 'telemetry:sample', payload: reading });
    if (this.running) this.timer = this.deps.clock.setTimeout(() => this.sample(), SAMPLE_PERIOD_MS);
  }
}
