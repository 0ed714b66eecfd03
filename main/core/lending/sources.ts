// What the lending gate reads of the machine, behind small ports so a test (and each shell)
// gives its own: the operator's idle time, the power supply, the CPU use and the free space.
import { statfs } from 'node:fs/promises';
import os from 'node:os';

/** Seconds since the operator's last input, or null when this machine does not say. */
export interface IdleSource {
  idleSeconds(): Promise<number | null>;
}

export interface PowerReading {
  onBattery: boolean;
  /** The battery's charge, or null when it is not known. */
  percent: number | null;
}

/** The power supply, or null when there is no battery to speak of (taken as mains power). */
export interface PowerSource {
  read(): Promise<PowerReading | null>;
}

/** The machine's CPU use (percent of every core) since the last reading, or null before there is one. */
export interface CpuSource {
  percent(): number | null;
}

/** The free bytes of the file system a folder is on, or null when it cannot be read. */
export interface DiskSource {
  freeBytes(dir: string): Promise<number | null>;
}

export interface LendingSources {
  idle: IdleSource;
  power: PowerSource;
  cpu: CpuSource;
  disk: DiskSource;
}

type CpuTimes = { idle: number; total: number };

function cpuTimes(cpus: readonly os.CpuInfo[]): CpuTimes {
  let idle = 0;
  let total = 0;
  for (const { times } of cpus) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

/** CPU use from `os.cpus()` deltas between two readings (the gate reads it on its poll). */
export function nodeCpuSource(read: () => readonly os.CpuInfo[] = () => os.cpus()): CpuSource {
  let last = cpuTimes(read());
  return {
    percent() {
      const now = cpuTimes(read());
      const total = now.total - last.total;
      const idle = now.idle - last.idle;
      last = now;
      if (total <= 0) return null;
      return Math.max(0, Math.min(100, Math.round(((total - idle) / total) * 100)));
    },
  };
}

/** Free space from `statfs` (what an unprivileged process may still write). */
export const statfsDiskSource: DiskSource = {
  async freeBytes(dir) {
    try {
      const s = await statfs(dir);
      return Number(s.bavail) * Number(s.bsize);
    } catch {
      return null;
    }
  },
};
