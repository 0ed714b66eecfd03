// The lending terms read against the machine at one instant: pure, so every term and its
// wording is testable without a clock. The gate (lending-gate.ts) reads the sources and
// calls this on its timers.
import type { LendingHold } from '../../../shared/lending';
import { nextScheduleChange, parseSchedule, scheduleOpenAt, SCHEDULE_DAYS } from '../../../shared/lending-schedule';
import type { Settings } from '../../../shared/settings';
import type { PowerReading } from './sources';

export type LendingTerms = Pick<
  Settings,
  'lendSchedule' | 'lendIdleMinutes' | 'lendOnBattery' | 'lendMinBatteryPercent' | 'activeMachineMaxTurns' | 'activeCpuCeilingPercent' | 'diskMinFreeGb'
>;

export interface LendingReadings {
  now: number;
  idleSeconds: number | null;
  power: PowerReading | null;
  cpuPercent: number | null;
  /** Free bytes of each folder new work writes to (null: could not be read). */
  disk: readonly { dir: string; freeBytes: number | null }[];
}

export interface TermsVerdict {
  holds: LendingHold[];
  /** The operator is using the machine (the ceilings while in use apply). */
  active: boolean;
  /** When a term would change by the clock alone (a schedule boundary, the idle threshold), or null. */
  nextCheckAt: number | null;
  /** The folders below the free-space floor: they must climb past the hysteresis to let go. */
  lowDisk: Set<string>;
}

/** Without input for this long (lendIdleMinutes 0), the operator counts as away for the ceilings while in use. */
export const ACTIVE_WINDOW_SECONDS = 60;
/** A folder held for space lets go only this far above the floor, so a write or two does not flap it. */
export const DISK_HYSTERESIS = 0.1;
const GB = 1e9;

export const IDLE_NOT_AVAILABLE = 'idle time is not available on this machine: the idle term cannot be met; set it to 0';

const two = (n: number) => String(n).padStart(2, '0');
const dayName = (d: Date) => SCHEDULE_DAYS[(d.getDay() + 6) % 7]!.replace(/^./, (c) => c.toUpperCase());
/** "Mon 09:00" in local time. */
export function localMoment(at: number): string {
  const d = new Date(at);
  return `${dayName(d)} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
/** "1.2 GB", or "512 MB" below a gigabyte (a small floor reads as what it is). */
const gb = (bytes: number) => (bytes >= GB ? `${(bytes / GB).toFixed(1).replace(/\.0$/, '')} GB` : `${Math.round(bytes / 1e6)} MB`);

/**
 * The hold of a schedule text at `now` and its next boundary. `whose` names the hours in the
 * reason: the machine's ("your lending hours") or one profile's ("this profile's hours").
 */
export function scheduleHold(schedule: string, now: number, whose = 'your lending hours'): { hold: LendingHold | null; next: number | null } {
  const grid = parseSchedule(schedule);
  if (!grid) return { hold: null, next: null };
  const next = nextScheduleChange(grid, new Date(now))?.getTime() ?? null;
  if (scheduleOpenAt(grid, new Date(now))) return { hold: null, next };
  const reason = next === null ? `Outside ${whose} — no hour of the week is open` : `Outside ${whose} — resumes ${localMoment(next)}`;
  return { hold: { kind: 'schedule', reason, resumesAt: next }, next };
}

function idleHold(terms: LendingTerms, r: LendingReadings): { hold: LendingHold | null; active: boolean; next: number | null } {
  const thresholdS = terms.lendIdleMinutes * 60;
  if (r.idleSeconds === null) {
    // Not known: the ceilings while in use do not apply; an idle term cannot be met, and says so.
    return { hold: terms.lendIdleMinutes > 0 ? { kind: 'idle', reason: `Waiting: ${IDLE_NOT_AVAILABLE}`, resumesAt: null } : null, active: false, next: null };
  }
  const windowS = thresholdS > 0 ? thresholdS : ACTIVE_WINDOW_SECONDS;
  const active = r.idleSeconds < windowS;
  const next = active ? r.now + (windowS - r.idleSeconds) * 1000 : null;
  if (thresholdS === 0 || !active) return { hold: null, active, next };
  const reason = `Waiting: you are using this machine — resumes ${terms.lendIdleMinutes} min after you stop`;
  return { hold: { kind: 'idle', reason, resumesAt: next }, active, next };
}

function batteryHold(terms: LendingTerms, power: PowerReading | null): LendingHold | null {
  if (!power?.onBattery) return null;
  const charge = power.percent === null ? '' : ` (${power.percent} %)`;
  if (!terms.lendOnBattery) return { kind: 'battery', reason: `On battery${charge} — resumes on mains power`, resumesAt: null };
  if (power.percent !== null && power.percent < terms.lendMinBatteryPercent) {
    const reason = `Battery low (${power.percent} % < ${terms.lendMinBatteryPercent} %) — resumes on mains power or above ${terms.lendMinBatteryPercent} %`;
    return { kind: 'battery', reason, resumesAt: null };
  }
  return null;
}

function cpuHold(terms: LendingTerms, active: boolean, cpu: number | null): LendingHold | null {
  const ceiling = terms.activeCpuCeilingPercent;
  if (!active || ceiling >= 100 || cpu === null || cpu < ceiling) return null;
  return { kind: 'cpu', reason: `Machine busy (CPU ${cpu} % ≥ ${ceiling} %) while you use it — resumes below ${ceiling} %`, resumesAt: null };
}

function diskHolds(terms: LendingTerms, r: LendingReadings, wasLow: ReadonlySet<string>): { holds: LendingHold[]; low: Set<string> } {
  const low = new Set<string>();
  const holds: LendingHold[] = [];
  if (terms.diskMinFreeGb <= 0) return { holds, low };
  const floor = terms.diskMinFreeGb * GB;
  for (const { dir, freeBytes } of r.disk) {
    if (freeBytes === null) continue;
    const needed = wasLow.has(dir) ? floor * (1 + DISK_HYSTERESIS) : floor;
    if (freeBytes >= needed) continue;
    low.add(dir);
    holds.push({ kind: 'disk', reason: `Only ${gb(freeBytes)} free on ${dir} (needs ${gb(floor)}) — resumes above it`, resumesAt: null });
  }
  return { holds, low };
}

/** Every term that holds new work back at `r.now`, in a fixed order (the first is the status line's). */
export function evaluateTerms(terms: LendingTerms, r: LendingReadings, wasLow: ReadonlySet<string> = new Set()): TermsVerdict {
  const schedule = scheduleHold(terms.lendSchedule, r.now);
  const idle = idleHold(terms, r);
  const disk = diskHolds(terms, r, wasLow);
  const holds = [schedule.hold, idle.hold, batteryHold(terms, r.power), cpuHold(terms, idle.active, r.cpuPercent), ...disk.holds].filter(
    (h): h is LendingHold => h !== null,
  );
  const times = [schedule.next, idle.next].filter((t): t is number => t !== null);
  return { holds, active: idle.active, nextCheckAt: times.length ? Math.min(...times) : null, lowDisk: disk.low };
}

/** The turns at once while the operator is active: the lower of the two caps (0: the same as idle). */
export function turnCapFor(terms: Pick<LendingTerms, 'activeMachineMaxTurns'>, active: boolean, idleCap: number): number {
  return active && terms.activeMachineMaxTurns > 0 ? Math.max(1, Math.min(terms.activeMachineMaxTurns, idleCap)) : idleCap;
}
