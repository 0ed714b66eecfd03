import type { EmulatorConfig } from './config';
import type { Db } from './db/database';
import type { EventLog } from './events';

/** What every service shares: storage, time, configuration and the event log. */
export interface EmulatorContext {
  db: Db;
  config: EmulatorConfig;
  now: () => number;
  random: () => number;
  events: EventLog;
  /** `http://127.0.0.1:<port>`, known once the server listens. */
  baseUrl: string;
  /** Called whenever a unit may have become assignable, so held claims re-check at once. */
  notifyWork: () => void;
}

export const iso = (ms: number): string => new Date(ms).toISOString();
