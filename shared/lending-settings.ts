// The lending terms' field schemas: when this machine takes new work (see settings.ts for
// the fields and their messages, lending-schedule.ts for the schedule's text).
import { z } from 'zod';
import { formatSchedule, parseSchedule } from './lending-schedule';

export const MAX_LEND_IDLE_MINUTES = 24 * 60;
export const DEFAULT_DISK_MIN_FREE_GB = 2;

export const LENDING_KEYS = [
  'lendSchedule',
  'profileLendSchedule',
  'lendIdleMinutes',
  'lendOnBattery',
  'lendMinBatteryPercent',
  'activeMachineMaxTurns',
  'activeCpuCeilingPercent',
  'diskMinFreeGb',
  'lendStopsRunningTurns',
] as const;
type LendingKey = (typeof LENDING_KEYS)[number];
export function isLendingKey(key: string): key is LendingKey {
  return (LENDING_KEYS as readonly string[]).includes(key);
}

/** The lending terms: when this machine takes new work. */
export function lendingFieldSchema(key: LendingKey, error: string, maxMachineTurns: number): z.ZodType<unknown> {
  const int = (min: number, max: number) => z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
  switch (key) {
    case 'lendOnBattery':
    case 'lendStopsRunningTurns':
      return z.boolean({ error });
    case 'lendIdleMinutes':
      return int(0, MAX_LEND_IDLE_MINUTES);
    case 'lendMinBatteryPercent':
      return int(0, 100);
    case 'activeMachineMaxTurns':
      return int(0, maxMachineTurns);
    case 'activeCpuCeilingPercent':
      return int(10, 100);
    case 'diskMinFreeGb':
      return z.number({ error }).min(0, { error }).max(10_000, { error });
    case 'lendSchedule':
    case 'profileLendSchedule':
      return z
        .string({ error })
        .max(2000, { error })
        .transform((v) => parseSchedule(v))
        .refine((grid) => grid !== null, { error })
        .transform((grid) => formatSchedule(grid!));
  }
}
