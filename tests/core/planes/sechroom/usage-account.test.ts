import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sechroomUsage } from '../../../../main/core/planes/sechroom/usage-account';
import { UsageBook } from '../../../../main/core/usage/usage-book';
import { UsageLog } from '../../../../main/core/usage/usage-log';
import { UsageService } from '../../../../main/core/usage/usage-service';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

// A Sechroom profile on the usage accounts: its codex readings go to the account of its own
// model account alias, and its claims are admitted against that account at its own reserve.

describe('a Sechroom profile’s usage account', () => {
  let dir: string;
  let clock: FakeClock;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-sechroom-usage-'));
    clock = new FakeClock();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('two profiles, two aliases, one at its reserve: only that one defers', async () => {
    const log = testLogging().log;
    const service = new UsageService({
      clock,
      log,
      book: new UsageBook(path.join(dir, 'accounts.json')),
      usageLog: new UsageLog({ dir, log, now: () => clock.now() }),
      alias: () => 'default',
      reservePercent: () => 2,
      alertThresholds: () => [],
    });
    const teamA = sechroomUsage(service, 2, () => 'team-a');
    const teamB = sechroomUsage(service, 2, () => 'team-b');
    teamB.onRateLimits({ primary: { usedPercent: 99, windowMinutes: 300, resetsAt: clock.now() + 3_600_000 }, secondary: null });
    expect(await teamB.admission.check()).toEqual({
      ok: false,
      reason: expect.stringMatching(/^rate-limit remaining 1\.0%/),
      retryAt: clock.now() + 3_600_000,
    });
    expect(await teamA.admission.check()).toEqual({ ok: true });
    expect(service.snapshot().accounts.map((a) => a.key)).toEqual(['codex:team-b']);
  });
});
