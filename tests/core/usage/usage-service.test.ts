import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decideAdmission, PROBE_INTERVAL_MS } from '../../../main/core/usage/admission';
import { parseUsageLimit } from '../../../main/core/exec/limit-messages';
import { UsageBook } from '../../../main/core/usage/usage-book';
import { UsageLog } from '../../../main/core/usage/usage-log';
import type { UsageService } from '../../../main/core/usage/usage-service';
import type { ExecutionOutcome } from '../../../main/core/exec/executor-port';
import type { RateLimitReading, UsageNotice } from '../../../shared/usage';
import { accountSummaryLine, costText } from '../../../shared/usage-text';
import { FakeClock } from '../../helpers/fake-clock';
import { usageServiceIn } from '../../helpers/usage-service';
import { testLogging } from '../../helpers/test-logger';

const HOUR = 3_600_000;

function outcome(over: Partial<ExecutionOutcome> = {}): ExecutionOutcome {
  return { status: 'succeeded', reason: 'exit', summary: 'ok', exitCode: 0, outputTail: '', durationMs: 1, outputBytes: 0, ...over };
}

describe('usage accounts and admission', () => {
  let dir: string;
  let clock: FakeClock;
  let notices: UsageNotice[];
  let probe: ((runtime: 'claude' | 'codex') => Promise<RateLimitReading | null>) | undefined;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-usage-'));
    clock = new FakeClock(Date.parse('2026-12-02T14:16:00.000Z'));
    notices = [];
    probe = undefined;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function service(reserve = 2) {
    const made = usageServiceIn(dir, clock, { reservePercent: () => reserve, ...(probe ? { probe } : {}), onNotice: (n) => notices.push(n) });
    made.s.start();
    return made;
  }

  const nextChange = (s: UsageService) =>
    new Promise<void>((resolve) => {
      const off = s.onChange(() => {
        off();
        resolve();
      });
    });
  const records = () =>
    readFileSync(path.join(dir, 'usage-log.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  it('1.8 % left with a reset time: deferred with the seed message, claiming again at the reset instant', async () => {
    const { s, usageLog } = service();
    const resetsAt = clock.now() + 2 * HOUR + 14 * 60_000;
    s.recordRateLimits('codex', {
      primary: { usedPercent: 98.2, windowMinutes: 300, resetsAt },
      secondary: { usedPercent: 40, windowMinutes: 10080, resetsAt: null },
    });
    expect(s.admits('codex')).toBe(false);
    expect(s.admission('codex')).toEqual({
      state: 'deferred',
      reason: `rate-limit remaining 1.8% (primary window) is at or below the 2% reserve; resets at ${new Date(resetsAt).toISOString()}`,
      remainingPercent: expect.closeTo(1.8, 5),
      resumesAt: resetsAt,
      probeAt: null,
    });
    expect(s.heartbeatState('codex')).toBe(`reserve reached until ${new Date(resetsAt).toISOString().slice(0, 16)}Z`);
    expect(s.admits('claude')).toBe(true);

    const resumed = nextChange(s);
    clock.advance(2 * HOUR + 14 * 60_000);
    await resumed;
    expect(s.admits('codex')).toBe(true);
    await usageLog.flush();
    const admission = records().filter((r) => r.type === 'admission');
    expect(admission.map((r) => r.ok)).toEqual([false, true]);
    expect(admission[0]).toMatchObject({ account: 'codex:default', reservePercent: 2, resumesAt: new Date(resetsAt).toISOString() });
    expect(records().find((r) => r.type === 'rate-limits')).toMatchObject({ remainingPercent: expect.closeTo(1.8, 5) });
    expect(notices.map((n) => n.kind)).toEqual(['threshold', 'recovered']);
    s.stop();
  });

  it('1.8 % left without a reset time: not deferred forever — codex is probed after 15 min (the seed stayed deferred, B15.10)', async () => {
    probe = (runtime) => {
      expect(runtime).toBe('codex');
      return Promise.resolve({ primary: { usedPercent: 30, windowMinutes: 300, resetsAt: null }, secondary: null });
    };
    const { s } = service();
    s.recordRateLimits('codex', { primary: { usedPercent: 98.2, windowMinutes: 300, resetsAt: null }, secondary: null });
    const deferred = s.admission('codex');
    expect(deferred).toMatchObject({ state: 'deferred', resumesAt: null, probeAt: clock.now() + PROBE_INTERVAL_MS });
    clock.advance(PROBE_INTERVAL_MS - 1);
    expect(s.admits('codex')).toBe(false);
    const probed = nextChange(s);
    clock.advance(1);
    await probed;
    expect(s.admits('codex')).toBe(true);
    expect(s.snapshot().accounts[0]?.windows.primary?.usedPercent).toBe(30);
    s.stop();
  });

  it('a claude usage-limit failure marks the account limited until the reset; without a reset one claim is let through every 15 min', async () => {
    const { s } = service();
    const resetsAt = clock.now() + 3 * HOUR;
    s.recordTurn('claude', 'u1', outcome({ status: 'failed', reason: 'runtime_error', usageLimit: { message: 'Claude AI usage limit reached', resetsAt } }));
    expect(s.admits('claude')).toBe(false);
    expect(s.heartbeatState('claude')).toBe(`limited until ${new Date(resetsAt).toISOString().slice(0, 16)}Z`);
    expect(notices).toEqual([{ kind: 'limited', account: 'claude:default', message: 'Claude AI usage limit reached', until: resetsAt }]);

    const back = nextChange(s);
    clock.advance(3 * HOUR);
    await back;
    expect(s.admits('claude')).toBe(true);

    // A 429 without a reset time: deferred, then one probe claim after 15 min.
    s.recordTurn(
      'claude',
      'u2',
      outcome({ status: 'failed', reason: 'runtime_error', usageLimit: { message: 'API Error: 429 rate_limit_error', resetsAt: null } }),
    );
    expect(s.admission('claude')).toMatchObject({ state: 'deferred', resumesAt: null, probeAt: clock.now() + PROBE_INTERVAL_MS });
    const grant = nextChange(s);
    clock.advance(PROBE_INTERVAL_MS);
    await grant;
    expect(s.admits('claude')).toBe(true);
    // The probe claim hit the limit again: deferred for another 15 min, not at once retried.
    s.recordTurn(
      'claude',
      'u3',
      outcome({ status: 'failed', reason: 'runtime_error', usageLimit: { message: 'API Error: 429 rate_limit_error', resetsAt: null } }),
    );
    expect(s.admits('claude')).toBe(false);
    expect(s.admission('claude')).toMatchObject({ probeAt: clock.now() + PROBE_INTERVAL_MS });
    // A success clears the limit.
    const again = nextChange(s);
    clock.advance(PROBE_INTERVAL_MS);
    await again;
    s.recordTurn('claude', 'u4', outcome({ usage: { input_tokens: 10, output_tokens: 5, cost_usd: 0.01 } }));
    expect(s.admits('claude')).toBe(true);
    expect(s.heartbeatState('claude')).toBe('available');
    s.stop();
  });

  it('tokens and cost today and this week, persisted atomically and read back with zod', async () => {
    const { s, book } = service();
    s.recordTurn('claude', 'u1', outcome({ usage: { input_tokens: 100, output_tokens: 20, cost_usd: 0.5 } }));
    clock.advance(24 * HOUR);
    s.recordTurn('claude', 'u2', outcome({ usage: { input_tokens: 10, output_tokens: 2, cost_usd: 0.25 } }));
    const view = s.snapshot().accounts[0];
    expect(view?.today).toEqual({ inputTokens: 10, outputTokens: 2, costUsd: 0.25, turns: 1, unpricedTurns: 0 });
    expect(view?.week).toEqual({ inputTokens: 110, outputTokens: 22, costUsd: 0.75, turns: 2, unpricedTurns: 0 });
    await book.flush();
    const again = new UsageBook(path.join(dir, 'accounts.json'));
    expect(await again.load()).toEqual({ warning: null });
    expect(again.list()[0]?.turns).toHaveLength(2);

    writeFileSync(path.join(dir, 'accounts.json'), '{"version":1,"accounts":{"x":{"runtime":"gemini"}}}');
    const damaged = new UsageBook(path.join(dir, 'accounts.json'));
    expect((await damaged.load()).warning).toMatch(/usage file was damaged/);
    expect(readdirSync(dir).some((f) => f.startsWith('accounts.json.damaged-'))).toBe(true);
    s.stop();
  });

  it('codex reports no cost: its tokens are counted and its cost is unknown, never $0', () => {
    const { s } = service();
    s.recordTurn('codex', 'u1', outcome({ usage: { input_tokens: 40, output_tokens: 12 } }));
    s.recordTurn('codex', 'u2', outcome({ usage: { input_tokens: 4, output_tokens: 1 } }));
    const view = s.snapshot().accounts[0]!;
    expect(view.today).toEqual({ inputTokens: 44, outputTokens: 13, costUsd: 0, turns: 2, unpricedTurns: 2 });
    expect(view.lastTurn).toMatchObject({ inputTokens: 4, outputTokens: 1, costUsd: null });
    expect(costText(view.today)).toBe('cost unknown');
    expect(accountSummaryLine(view, clock.now())).toBe('Codex · default: 2 turns today, cost unknown');
    expect(costText({ costUsd: 0.5, turns: 3, unpricedTurns: 1 })).toBe('$0.50 + unknown');
    expect(costText({ costUsd: 0, turns: 0, unpricedTurns: 0 })).toBe('$0.00');
    s.stop();
  });

  it('the usage log rotates by size and keeps a bounded number of files', async () => {
    const log = new UsageLog({ dir, log: testLogging().log, now: () => clock.now(), maxBytes: 300, keep: 2 });
    for (let i = 0; i < 20; i++)
      await log.append({ type: 'usage', account: 'codex:default', unitId: `u${i}`, status: 'succeeded', tokensIn: 1, tokensOut: 1, costUsd: null });
    const files = readdirSync(dir)
      .filter((f) => f.startsWith('usage-log.jsonl'))
      .sort();
    expect(files).toEqual(['usage-log.jsonl', 'usage-log.jsonl.1', 'usage-log.jsonl.2']);
    for (const f of files) expect(readFileSync(path.join(dir, f)).length).toBeLessThanOrEqual(300);
    const last = readFileSync(path.join(dir, 'usage-log.jsonl'), 'utf8').trim().split('\n').at(-1);
    expect(JSON.parse(last ?? '{}')).toMatchObject({ ts: new Date(clock.now()).toISOString(), type: 'usage', unitId: 'u19' });
  });

  it('admission is strict at the reserve: remaining above it admits, at it defers', () => {
    const at = (used: number) =>
      decideAdmission({ windows: { primary: { usedPercent: used, windowMinutes: 300, resetsAt: null }, secondary: null }, limited: null, probedAt: null }, 2, 0)
        .state;
    expect(at(97.9)).toBe('claiming');
    expect(at(98)).toBe('deferred');
    // A window whose reset instant has passed no longer binds.
    expect(
      decideAdmission({ windows: { primary: { usedPercent: 100, windowMinutes: 300, resetsAt: 10 }, secondary: null }, limited: null, probedAt: null }, 2, 11)
        .state,
    ).toBe('claiming');
  });
});

describe('usage-limit messages', () => {
  const now = Date.parse('2026-12-02T14:16:00.000Z');

  it('claude: epoch after the bar, "resets 4:30pm (zone)", the API 429; codex: "try again in"', () => {
    expect(parseUsageLimit('Claude AI usage limit reached|1796236200', now)).toEqual({
      message: 'Claude AI usage limit reached|1796236200',
      resetsAt: 1796236200_000,
    });
    expect(parseUsageLimit("You've hit your limit · resets 4:30pm (Europe/Berlin)", now)?.resetsAt).toBe(Date.parse('2026-12-02T15:30:00.000Z'));
    expect(parseUsageLimit('5-hour limit reached ∙ resets 3pm (UTC)', now)?.resetsAt).toBe(Date.parse('2026-12-02T15:00:00.000Z'));
    // A wall time already past today is tomorrow's.
    expect(parseUsageLimit('Claude usage limit reached. Your limit will reset at 9am (UTC).', now)?.resetsAt).toBe(Date.parse('2026-12-03T09:00:00.000Z'));
    expect(
      parseUsageLimit(
        'API Error: 429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}',
        now,
      ),
    ).toMatchObject({ resetsAt: null });
    expect(parseUsageLimit("You've hit your usage limit. Upgrade to Pro or try again in 2 hours 14 minutes.", now)?.resetsAt).toBe(
      now + (2 * 60 + 14) * 60_000,
    );
    expect(parseUsageLimit('the tests failed: 3 errors', now)).toBeNull();
  });
});
