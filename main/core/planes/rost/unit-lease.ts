import type { Clock, TimerHandle } from '../../base/ports';
import { requestTimeoutMs, retryMs } from '../../sessions/lease-cadence';

/** What one lease heartbeat came to: a good beat (the lease was extended), a failure worth retrying soon, or the end of the beats. */
export type UnitBeat = 'ok' | 'failed' | 'stop';

/**
 * When a Rost unit's lease heartbeats go out (docs/protocol.md §4): every `heartbeat_ms`
 * while they land. The server extends the lease to 3 × `heartbeat_ms` from each beat, so a
 * failed beat is retried on the lease's own clock (a quarter of the time left, 250 ms–2 s),
 * not a whole interval later, and no beat waits longer than the lease has left. The time
 * left is counted from when a good beat was sent, never later than the server's count.
 */
export class UnitLeaseTimer {
  private timer: TimerHandle | null = null;
  private alive = true;
  private deadline: number;

  constructor(
    private readonly clock: Clock,
    private readonly everyMs: number,
    private readonly beat: (timeoutMs: number) => Promise<UnitBeat>,
  ) {
    this.deadline = clock.now() + 3 * everyMs;
  }

  start(): void {
    this.schedule(this.everyMs);
  }

  stop(): void {
    this.alive = false;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs: number): void {
    if (!this.alive) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      const sentAt = this.clock.now();
      void this.beat(requestTimeoutMs(this.deadline - sentAt)).then(
        (outcome) => this.after(outcome, sentAt),
        () => this.after('failed', sentAt),
      );
    }, delayMs);
  }

  private after(outcome: UnitBeat, sentAt: number): void {
    if (outcome === 'stop') return this.stop();
    if (outcome === 'ok') {
      this.deadline = sentAt + 3 * this.everyMs;
      return this.schedule(this.everyMs);
    }
    this.schedule(Math.min(this.everyMs, retryMs(this.deadline - this.clock.now())));
  }
}
