import path from 'node:path';
import { UsageBook } from '../../main/core/usage/usage-book';
import { UsageLog } from '../../main/core/usage/usage-log';
import { UsageService, type UsageServiceDeps } from '../../main/core/usage/usage-service';
import type { FakeClock } from './fake-clock';
import { testLogging } from './test-logger';

/** A usage service over a book and log in `dir` (not started): account `default`, reserve 2 %, alerts at 20 and 5 % unless `deps` say otherwise. */
export function usageServiceIn(dir: string, clock: FakeClock, deps: Partial<UsageServiceDeps> = {}) {
  const log = testLogging();
  const book = new UsageBook(path.join(dir, 'accounts.json'));
  const usageLog = new UsageLog({ dir, log: log.log, now: () => clock.now() });
  const s = new UsageService({ clock, log: log.log, book, usageLog, alias: () => 'default', reservePercent: () => 2, alertThresholds: () => [20, 5], ...deps });
  return { s, book, usageLog, log };
}
