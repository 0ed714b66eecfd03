import type { HostEvent } from '../../shared/contract';
import type { Clock, TimerHandle } from './base/ports';

type Listener = (batch: HostEvent[]) => void;

/** Which state an event replaces: per profile for a profile's status, snapshot and settings. */
function stateKey(event: HostEvent): string {
  switch (event.event) {
    case 'runner:status':
    case 'runner:snapshot':
    case 'settings:changed':
      return `${event.event}:${event.payload.profile ?? ''}`;
    default:
      return event.event;
  }
}

/**
 * Collects events from the core and hands them to the transports in batches, so a burst
 * (a turn's output, a flurry of log lines) costs the renderer one update, not hundreds.
 * State events are latest-wins within a batch (a profile's own per profile); list events are concatenated.
 */
export class EventHub {
  private queue: HostEvent[] = [];
  private timer: TimerHandle | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly sources: (() => HostEvent | null)[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 50,
  ) {}

  emit(event: HostEvent): void {
    if (event.event === 'log:entries') {
      const last = this.queue.at(-1);
      if (last?.event === 'log:entries') last.payload.push(...event.payload);
      else this.queue.push({ event: 'log:entries', payload: [...event.payload] });
    } else {
      const key = stateKey(event);
      this.queue = this.queue.filter((queued) => stateKey(queued) !== key);
      this.queue.push(event);
    }
    if (this.timer === null) this.timer = this.clock.setTimeout(() => this.flush(), this.windowMs);
  }

  /**
   * A source that keeps its own changes (e.g. the turn registry) and is drained once per
   * batch; `poke()` says it has something.
   */
  addSource(drain: () => HostEvent | null): void {
    this.sources.push(drain);
  }

  poke(): void {
    if (this.timer === null) this.timer = this.clock.setTimeout(() => this.flush(), this.windowMs);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  flush(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    for (const drain of this.sources) {
      const event = drain();
      if (event) this.queue.push(event);
    }
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    for (const listener of this.listeners) listener(batch);
  }

  dispose(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
    this.listeners.clear();
  }
}
