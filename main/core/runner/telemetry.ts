import os from 'node:os';
import { SAMPLE_WINDOW, type CapacitySample } from '../../../shared/telemetry';

/** The OS readings telemetry needs, as a port so tests can feed exact numbers. */
export interface SystemProbe {
  cpuTimes(): { idle: number; total: number }[];
  totalmem(): number;
  freemem(): number;
  rss(): number;
}

export const nodeSystemProbe: SystemProbe = {
  cpuTimes: () => os.cpus().map(({ times }) => ({ idle: times.idle, total: times.user + times.nice + times.sys + times.idle + times.irq })),
  totalmem: () => os.totalmem(),
  freemem: () => os.freemem(),
  rss: () => process.memoryUsage.rss(),
};

/** CPU load between two readings of the per-core counters, in percent of all cores. */
export function cpuPercentBetween(before: { idle: number; total: number }[], after: { idle: number; total: number }[]): number {
  let idle = 0;
  let total = 0;
  for (let i = 0; i < Math.min(before.length, after.length); i++) {
    idle += after[i]!.idle - before[i]!.idle;
    total += after[i]!.total - before[i]!.total;
  }
  if (total <= 0) return 0;
  return Math.min(100, Math.max(0, Math.round(((total - idle) / total) * 1000) / 10));
}

/** Takes readings and keeps the last hour of them in a fixed ring (no allocation per sample). */
export class CapacityHistory {
  private readonly ring: (CapacitySample | undefined)[];
  private next = 0;
  private size = 0;
  private lastCpu: { idle: number; total: number }[];

  constructor(
    private readonly probe: SystemProbe,
    readonly capacity = SAMPLE_WINDOW,
  ) {
    this.ring = Array.from({ length: capacity }, () => undefined);
    this.lastCpu = probe.cpuTimes();
  }

  sample(t: number, sessions: { active: number; max: number }): CapacitySample {
    const cpu = this.probe.cpuTimes();
    const reading: CapacitySample = {
      t,
      cpuPercent: cpuPercentBetween(this.lastCpu, cpu),
      memTotalBytes: this.probe.totalmem(),
      memFreeBytes: this.probe.freemem(),
      rssBytes: this.probe.rss(),
      activeSessions: sessions.active,
      maxSessions: sessions.max,
    };
    this.lastCpu = cpu;
    this.ring[this.next] = reading;
    this.next = (this.next + 1) % this.capacity;
    this.size = Math.min(this.capacity, this.size + 1);
    return reading;
  }

  latest(): CapacitySample | null {
    return this.size === 0 ? null : (this.ring[(this.next - 1 + this.capacity) % this.capacity] ?? null);
  }

  /** Oldest first. */
  all(): CapacitySample[] {
    const out: CapacitySample[] = [];
    const start = (this.next - this.size + this.capacity) % this.capacity;
    for (let i = 0; i < this.size; i++) out.push(this.ring[(start + i) % this.capacity]!);
    return out;
  }
}
