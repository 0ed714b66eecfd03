import { SCHEDULE_DAYS } from '../../../shared/lending-schedule';
import { defaultSettings, type Settings } from '../../../shared/settings';
import { LendingGate } from '../../../main/core/lending/lending-gate';
import type { LendingTerms } from '../../../main/core/lending/lending-terms';
import type { PowerReading } from '../../../main/core/lending/sources';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

export const GB = 1e9;

/** Sources a test sets by hand: input `lastInputAt` (null: not available), power, CPU and free bytes per folder. */
export class FakeMachine {
  lastInputAt: number | null;
  power: PowerReading | null = null;
  cpu: number | null = 5;
  free = new Map<string, number>();

  constructor(private readonly clock: FakeClock) {
    this.lastInputAt = clock.now() - 3_600_000;
  }

  readonly sources = {
    idle: { idleSeconds: () => Promise.resolve(this.lastInputAt === null ? null : Math.floor((this.clock.now() - this.lastInputAt) / 1000)) },
    power: { read: () => Promise.resolve(this.power) },
    cpu: { percent: () => this.cpu },
    disk: { freeBytes: (dir: string) => Promise.resolve(this.free.get(dir) ?? 100 * GB) },
  };
}

/** `mon 09-18`-style text for the local hours [from, to) of the day `at` falls on. */
export function scheduleAround(at: number, from: number, to: number): string {
  const d = new Date(at);
  return `${SCHEDULE_DAYS[(d.getDay() + 6) % 7]} ${String(from).padStart(2, '0')}-${String(to).padStart(2, '0')}`;
}

export function startOfLocalHour(at: number, hour: number): number {
  const d = new Date(at);
  d.setHours(hour, 0, 0, 0);
  return d.getTime();
}

export function gateHarness(terms: Partial<LendingTerms> = {}, clock = new FakeClock()) {
  const machine = new FakeMachine(clock);
  const settings: { current: Settings } = { current: { ...defaultSettings('test'), ...terms } };
  let changes = 0;
  const gate = new LendingGate({
    clock,
    log: testLogging().log,
    terms: () => settings.current,
    sources: machine.sources,
    folders: () => ['/data', '/data/turns'],
    pollMs: 20_000,
  });
  gate.onChange(() => changes++);
  return {
    clock,
    machine,
    gate,
    set: async (patch: Partial<LendingTerms>) => {
      settings.current = { ...settings.current, ...patch };
      await gate.check();
    },
    changes: () => changes,
    kinds: () => gate.holds().map((h) => h.kind),
  };
}
