import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decideAdmission } from '../../../main/core/usage/admission';
import { capReadings, NO_CAPS, type SpendingCaps } from '../../../main/core/usage/spending-caps';
import { localPeriods, type AccountRecord } from '../../../main/core/usage/usage-book';
import type { ExecutionOutcome } from '../../../main/core/exec/executor-port';
import type { UsageNotice } from '../../../shared/usage';
import { admissionText } from '../../../shared/usage-text';
import { FakeClock } from '../../helpers/fake-clock';
import { usageServiceIn } from '../../helpers/usage-service';

// The spending caps' windows are the machine's local day and week: these tests run in
// Berlin's time zone (CET/CEST) so local midnight, Monday and DST differ from UTC.
const savedTz = process.env.TZ;
beforeAll(() => {
  process.env.TZ = 'Europe/Berlin';
});
afterAll(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});

const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

function account(runtime: 'claude' | 'codex', turns: AccountRecord['turns']): AccountRecord {
  return { runtime, alias: 'default', windows: { primary: null, secondary: null }, observedAt: null, limited: null, probedAt: null, turns, history: [] };
}

describe('the local day and week of the spending caps', () => {
  it('a day runs from local midnight, a week from Monday 00:00 local', () => {
    // Wednesday 2 December 2026, 15:16 in Berlin (UTC+1).
    expect(localPeriods(at('2026-12-02T14:16:00Z'))).toEqual({
      day: at('2026-12-01T23:00:00Z'),
      nextDay: at('2026-12-02T23:00:00Z'),
      week: at('2026-11-29T23:00:00Z'),
      nextWeek: at('2026-12-06T23:00:00Z'),
    });
    // Sunday 23:59:59 is still the old week; Monday 00:00 starts the next.
    expect(localPeriods(at('2026-12-06T22:59:59Z')).week).toBe(at('2026-11-29T23:00:00Z'));
    expect(localPeriods(at('2026-12-06T23:00:00Z'))).toMatchObject({ day: at('2026-12-06T23:00:00Z'), week: at('2026-12-06T23:00:00Z') });
  });

  it('across DST a day is 23 or 25 hours and the week moves with it; a zone that skips midnight starts its day at 01:00', () => {
    const spring = localPeriods(at('2026-03-29T12:00:00Z')); // clocks go 02:00 → 03:00
    expect(spring.nextDay - spring.day).toBe(23 * HOUR);
    expect(spring.nextWeek).toBe(at('2026-03-29T22:00:00Z')); // Monday 30 March 00:00 CEST
    expect(spring.nextWeek - spring.week).toBe(167 * HOUR);
    const autumn = localPeriods(at('2026-10-25T12:00:00Z')); // clocks go 03:00 → 02:00
    expect(autumn.nextDay - autumn.day).toBe(25 * HOUR);
    process.env.TZ = 'America/Santiago'; // 6 September 2026: 00:00 does not exist there
    try {
      expect(localPeriods(at('2026-09-06T15:00:00Z')).day).toBe(at('2026-09-06T04:00:00Z'));
    } finally {
      process.env.TZ = 'Europe/Berlin';
    }
  });
});

describe('admission with spending caps', () => {
  const now = at('2026-12-02T14:16:00Z');
  const caps = (over: Partial<SpendingCaps>): SpendingCaps => ({ ...NO_CAPS, ...over });
  const decide = (a: AccountRecord, c: SpendingCaps) => decideAdmission(a, 2, now, capReadings(a, c, now));

  it('a reached daily token cap defers until local midnight; turns of yesterday do not count', () => {
    const a = account('claude', [
      [at('2026-12-01T20:00:00Z'), 5_000_000, 0, 1], // yesterday, local
      [at('2026-12-02T08:00:00Z'), 1_000_000, 200_000, 0.5],
    ]);
    expect(decide(a, caps({ dailyTokens: 2_000_000 }))).toEqual({ state: 'claiming' });
    const deferred = decide(a, caps({ dailyTokens: 1_000_000 }));
    expect(deferred).toEqual({
      state: 'deferred',
      reason: 'Daily token cap reached (1.2 M of 1 M) — resumes at 00:00',
      remainingPercent: null,
      resumesAt: at('2026-12-02T23:00:00Z'),
      probeAt: null,
      cause: 'cap',
    });
    expect(admissionText(deferred, now)).toBe('deferred: daily token cap reached, resumes at 00:00');
  });

  it('with the daily and the weekly cap reached it waits for the later reset, Monday 00:00', () => {
    const a = account('claude', [[at('2026-12-02T08:00:00Z'), 900, 300, 0.02]]);
    expect(decide(a, caps({ dailyTokens: 1000, weeklyTokens: 1000 }))).toMatchObject({
      reason: 'Weekly token cap reached (1.2 k of 1 k) — resumes on Mon 00:00',
      resumesAt: at('2026-12-06T23:00:00Z'),
    });
  });

  it('a usage limit still comes first', () => {
    const a = { ...account('claude', [[now - HOUR, 2000, 0, 0]]), limited: { since: now, until: now + HOUR, message: 'limit' } };
    expect(decide(a, caps({ dailyTokens: 1000 }))).toMatchObject({
      state: 'deferred',
      resumesAt: now + HOUR,
      reason: expect.stringMatching(/^usage limit reached/),
    });
  });

  it('cost counts where the runtime reports it; codex reports none, so its cost is unknown and the cap cannot hold it, while its tokens still count', () => {
    const claude = account('claude', [[now - HOUR, 10, 10, 12.4]]);
    expect(decide(claude, caps({ dailyCostUsd: 10 }))).toMatchObject({
      state: 'deferred',
      reason: 'Daily cost cap reached ($12.40 of $10.00) — resumes at 00:00',
    });
    const codex = account('codex', [[now - HOUR, 40_000, 12_000, null]]);
    expect(capReadings(codex, caps({ weeklyCostUsd: 10, weeklyTokens: 50_000 }), now)).toEqual([
      { id: 'weekly-tokens', used: 52_000, limit: 50_000, resetsAt: at('2026-12-06T23:00:00Z'), costUnknown: false, reached: true },
      { id: 'weekly-cost', used: 0, limit: 10, resetsAt: at('2026-12-06T23:00:00Z'), costUnknown: true, reached: false },
    ]);
    expect(decide(codex, caps({ weeklyCostUsd: 10 }))).toEqual({ state: 'claiming' });
  });
});

describe('the usage service with spending caps', () => {
  let dir: string;
  let clock: FakeClock;
  let notices: UsageNotice[];
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-caps-'));
    clock = new FakeClock(at('2026-12-02T14:16:00Z')); // 15:16 in Berlin
    notices = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function service(caps: SpendingCaps) {
    return usageServiceIn(dir, clock, { alertThresholds: () => [], caps: () => caps, onNotice: (n) => notices.push(n) });
  }
  const turn = (tokens: number): ExecutionOutcome => ({
    status: 'succeeded',
    reason: 'exit',
    summary: 'ok',
    exitCode: 0,
    outputTail: '',
    durationMs: 1,
    outputBytes: 0,
    usage: { input_tokens: tokens, output_tokens: 0 },
  });
  const capNotices = () => notices.filter((n) => n.kind === 'cap');

  it('notifies once at 80 % per window, defers at the cap, resumes at local midnight and keeps the totals across a restart', async () => {
    const first = service({ ...NO_CAPS, dailyTokens: 1000 });
    await first.book.load();
    first.s.start();
    first.s.recordTurn('codex', 'u1', turn(500));
    expect(capNotices()).toEqual([]);
    first.s.recordTurn('codex', 'u2', turn(320));
    first.s.recordTurn('codex', 'u3', turn(100));
    expect(capNotices()).toEqual([
      {
        kind: 'cap',
        account: 'codex:default',
        percent: 80,
        cap: { id: 'daily-tokens', used: 820, limit: 1000, resetsAt: at('2026-12-02T23:00:00Z'), costUnknown: false, reached: false },
      },
    ]);
    expect(first.s.admits('codex')).toBe(true);
    first.s.recordTurn('codex', 'u4', turn(100));
    expect(first.s.admits('codex')).toBe(false);
    expect(first.s.heartbeatState('codex')).toBe('spending cap reached until 2026-12-02T23:00Z');
    first.s.stop();
    await first.book.flush();

    // A restart: the totals come back from the book, still capped, and the 80 % is not told again.
    const second = service({ ...NO_CAPS, dailyTokens: 1000 });
    await second.book.load();
    second.s.start();
    expect(second.s.admission('codex')).toMatchObject({ state: 'deferred', resumesAt: at('2026-12-02T23:00:00Z') });
    expect(second.s.snapshot().accounts[0]?.caps).toEqual([
      { id: 'daily-tokens', used: 1020, limit: 1000, resetsAt: at('2026-12-02T23:00:00Z'), costUnknown: false, reached: true },
    ]);
    expect(clock.nextDueAt).toBe(at('2026-12-02T23:00:00Z'));
    clock.advance(at('2026-12-02T23:00:00Z') - clock.now() - 1);
    expect(second.s.admits('codex')).toBe(false);
    await clock.advanceAsync(1);
    expect(second.s.admits('codex')).toBe(true);
    expect(notices.at(-1)).toEqual({ kind: 'recovered', account: 'codex:default' });
    // A new day is a new window: its 80 % notifies again.
    second.s.recordTurn('codex', 'u5', turn(850));
    expect(capNotices()).toHaveLength(2);
    second.s.stop();
    await second.book.flush();
  });
});
