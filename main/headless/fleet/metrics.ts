import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { HostEvent } from '../../../shared/contract';
import type { RunnerSnapshot } from '../../../shared/runner';
import type { TurnView } from '../../../shared/turns';
import type { UsageSnapshot } from '../../../shared/usage';

/** Turn ids already counted (a finished turn is counted once, however often its row is sent). */
const SEEN_LIMIT = 2_000;

/**
 * The headless host's Prometheus metrics, in a registry of their own (never prom-client's
 * global one), read off the core's event batches: nothing in the core counts for them.
 * Labels are profile ids, planes, statuses and account keys: never a name, a URL or a secret.
 */
export class FleetMetrics {
  readonly registry = new Registry();
  private readonly turns: Counter<'profile' | 'plane' | 'status'>;
  private readonly claimSeconds: Histogram<'plane'>;
  private readonly heartbeatFailures: Counter<'profile'>;
  private readonly outboxPending: Gauge<'profile'>;
  private readonly usageRemaining: Gauge<'account' | 'window'>;
  private readonly seen = new Set<string>();
  private readonly beatFailures = new Map<string, number>();

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.turns = new Counter({
      name: 'runner_tray_turns_total',
      help: 'Finished turns, by profile, plane and status.',
      labelNames: ['profile', 'plane', 'status'],
      registers,
    });
    this.claimSeconds = new Histogram({
      name: 'runner_tray_claim_duration_seconds',
      help: 'From a claim request to the unit it brought (claims that brought one).',
      labelNames: ['plane'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.heartbeatFailures = new Counter({
      name: 'runner_tray_heartbeat_failures_total',
      help: 'Heartbeats that failed, by profile.',
      labelNames: ['profile'],
      registers,
    });
    this.outboxPending = new Gauge({
      name: 'runner_tray_outbox_pending',
      help: 'Finished results the control plane does not have yet (the durable outbox), by profile.',
      labelNames: ['profile'],
      registers,
    });
    this.usageRemaining = new Gauge({
      name: 'runner_tray_usage_remaining_percent',
      help: 'Percent left of each usage window of each lent model account.',
      labelNames: ['account', 'window'],
      registers,
    });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'runner_tray_' });
  }

  onEvents(batch: readonly HostEvent[]): void {
    for (const event of batch) {
      switch (event.event) {
        case 'turns:update':
          for (const turn of [...event.payload.finished, ...(event.payload.updated ?? [])]) this.turnFinished(turn);
          break;
        case 'runner:snapshot':
          this.snapshot(event.payload);
          break;
        case 'usage:update':
          this.usage(event.payload);
          break;
        case 'log:entries':
          for (const entry of event.payload) {
            const ms = entry.data?.claimMs;
            if (entry.msg === 'claimed a unit' && typeof ms === 'number' && Number.isFinite(ms) && ms >= 0)
              this.claimSeconds.observe({ plane: 'rost' }, ms / 1000);
          }
          break;
        default:
          break;
      }
    }
  }

  /** The text a scrape gets, and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private turnFinished(turn: TurnView): void {
    if (turn.phase !== 'succeeded' && turn.phase !== 'failed' && turn.phase !== 'canceled') return;
    if (this.seen.has(turn.id)) return;
    this.seen.add(turn.id);
    if (this.seen.size > SEEN_LIMIT) this.seen.delete(this.seen.values().next().value as string);
    this.turns.inc({ profile: turn.profile ?? 'default', plane: turn.plane ?? 'rost', status: turn.phase });
  }

  private snapshot(snapshot: RunnerSnapshot): void {
    const profile = snapshot.profile ?? 'default';
    const failures = snapshot.heartbeat.consecutiveFailures;
    const before = this.beatFailures.get(profile) ?? 0;
    if (failures > before) this.heartbeatFailures.inc({ profile }, failures - before);
    else this.heartbeatFailures.inc({ profile }, 0);
    this.beatFailures.set(profile, failures);
    this.outboxPending.set({ profile }, snapshot.results?.undelivered ?? 0);
  }

  private usage(snapshot: UsageSnapshot): void {
    this.usageRemaining.reset();
    for (const account of snapshot.accounts) {
      for (const name of ['primary', 'secondary'] as const) {
        const window = account.windows[name];
        if (window) this.usageRemaining.set({ account: account.key, window: name }, Math.max(0, 100 - window.usedPercent));
      }
    }
  }
}
