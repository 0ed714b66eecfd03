import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostEvent } from '../../../shared/contract';
import { defaultSettings, type Settings } from '../../../shared/settings';
import { wallClock } from '../../../shared/usage-text';
import type { CapabilityDetector } from '../../../main/core/runner/capabilities';
import { createUsage } from '../../../main/core/usage/usage-wiring';
import type { ExecutionOutcome, ExecutionRequest, UnitExecutor } from '../../../main/core/exec/executor-port';
import { FakeClock } from '../../helpers/fake-clock';
import { testLogging } from '../../helpers/test-logger';

// The composition of the usage accounts: the metered executor, the claim admission for the
// runtime a unit would use, and the heartbeat's state (measured unless overridden).

const caps = { claude: { installed: true, path: '/bin/claude' }, codex: { installed: true, path: '/bin/codex' } };

describe('usage wiring', () => {
  let dir: string;
  let clock: FakeClock;
  let settings: Settings;
  let events: HostEvent[];
  let outcome: ExecutionOutcome;
  let executed: ExecutionRequest[];

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rt-usage-wiring-'));
    clock = new FakeClock();
    settings = defaultSettings('host');
    events = [];
    executed = [];
    outcome = { status: 'succeeded', reason: 'exit', summary: 'ok', exitCode: 0, outputTail: '', durationMs: 1, outputBytes: 0 };
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function wiring(stateOverridden = false) {
    const inner: UnitExecutor = {
      sweepStale: async () => 0,
      execute: async (request) => {
        executed.push(request);
        request.onRateLimits?.({ primary: { usedPercent: 99, windowMinutes: 300, resetsAt: clock.now() + 3_600_000 }, secondary: null });
        return outcome;
      },
    };
    return createUsage({
      dataDir: dir,
      clock,
      log: testLogging().log,
      settings: () => settings,
      stateOverridden: () => stateOverridden,
      capabilities: { peek: () => caps } as unknown as CapabilityDetector,
      executor: inner,
      emit: (e) => events.push(e),
    });
  }

  const request = (runtime: 'claude' | 'codex'): ExecutionRequest => ({
    unitId: 'u1',
    kind: 'turn_execution',
    runtime,
    binary: '/bin/x',
    prompt: 'p',
    mcp: null,
    resumeSessionId: null,
    timeoutMs: 1000,
    signal: new AbortController().signal,
    knownSecrets: [],
  });

  it('a codex turn at 1 % left defers claims for codex, not for claude; a deferred unit is not run at all', async () => {
    settings = { ...settings, runtime: 'codex' };
    const w = wiring();
    await w.start();
    expect(w.admissionFor(() => settings).allowsClaim()).toBe(true);
    expect(w.accountState()).toBe('unknown');
    await w.executorFor(() => settings.modelAccountAlias).execute(request('codex'));
    expect(w.admissionFor(() => settings).allowsClaim()).toBe(false);
    expect(w.accountState()).toMatch(/^reserve reached until /);
    expect(w.claimsDeferredFor(() => settings)()).toBe(`Not claiming: Codex · default has 1 % left, resumes at ${wallClock(clock.now() + 3_600_000)}.`);
    expect(events.some((e) => e.event === 'usage:update')).toBe(true);

    const refused = await w.executorFor(() => settings.modelAccountAlias).execute(request('codex'));
    expect(refused).toMatchObject({
      status: 'failed',
      summary: expect.stringMatching(/^not run: the codex account "default" is deferred \(rate-limit remaining 1\.0%/),
    });
    expect(executed).toHaveLength(1);

    settings = { ...settings, runtime: 'claude' };
    expect(w.admissionFor(() => settings).allowsClaim()).toBe(true);
    await w.stop();
  });

  it('with runtime auto, claims go on while one runtime is admitted, and units without a brain go to it', async () => {
    const w = wiring();
    await w.start();
    await w.executorFor(() => settings.modelAccountAlias).execute(request('codex')); // codex: 1 % left
    expect(w.admissionFor(() => settings).allowsClaim()).toBe(true);
    expect(w.admissionFor(() => settings).admits('codex')).toBe(false);
    expect(w.claimsDeferredFor(() => settings)()).toBeNull();
    expect(w.accountState()).toMatch(/^unknown; codex reserve reached until /);
    outcome = { ...outcome, status: 'failed', usageLimit: { message: 'Claude AI usage limit reached', resetsAt: clock.now() + 7_200_000 } };
    await w.executorFor(() => settings.modelAccountAlias).execute(request('claude'));
    expect(w.admissionFor(() => settings).allowsClaim()).toBe(false);
    expect(w.claimsDeferredFor(() => settings)()).toMatch(/^Not claiming: Claude · default reached its usage limit; resumes at /);
    await w.stop();
  });

  it('the account state setting (or its env variable) overrides the measured state', async () => {
    settings = { ...settings, runtime: 'codex', modelAccountState: 'shared team plan' };
    const w = wiring();
    await w.start();
    await w.executorFor(() => settings.modelAccountAlias).execute(request('codex'));
    expect(w.accountState()).toBe('shared team plan');
    settings = { ...settings, modelAccountState: 'unknown' };
    expect(wiring(true).accountState()).toBe('unknown');
    await w.stop();
  });

  it('a usage-limit outcome is reported as not run to the end because of the limit', async () => {
    settings = { ...settings, runtime: 'claude' };
    outcome = {
      ...outcome,
      status: 'failed',
      reason: 'runtime_error',
      summary: 'Claude AI usage limit reached|1796236200',
      usageLimit: { message: 'Claude AI usage limit reached|1796236200', resetsAt: 1796236200_000 },
    };
    const w = wiring();
    await w.start();
    const result = await w.executorFor(() => settings.modelAccountAlias).execute(request('claude'));
    expect(result.summary.split('\n')[0]).toBe(
      `not run to the end: the usage limit of the claude account "default" was reached; it resets at ${new Date(1796236200_000).toISOString()}`,
    );
    expect(w.service.admission('claude')).toMatchObject({ state: 'deferred', resumesAt: 1796236200_000 });
    expect(w.claimsDeferredFor(() => settings)()).toBe(`Not claiming: Claude · default reached its usage limit; resumes at ${wallClock(1796236200_000)}.`);
    await w.stop();
  });

  it('each profile is admitted against its own alias: the one whose account is at its reserve defers, the other claims', async () => {
    const teamA: Settings = { ...settings, runtime: 'codex', modelAccountAlias: 'team-a' };
    const teamB: Settings = { ...settings, runtime: 'codex', modelAccountAlias: 'team-b' };
    const w = wiring();
    await w.start();
    await w.executorFor(() => teamB.modelAccountAlias).execute(request('codex')); // team-b: 1 % left, under the 2 % reserve
    expect(w.admissionFor(() => teamB).allowsClaim()).toBe(false);
    expect(w.claimsDeferredFor(() => teamB)()).toBe(`Not claiming: Codex · team-b has 1 % left, resumes at ${wallClock(clock.now() + 3_600_000)}.`);
    expect(w.admissionFor(() => teamA).allowsClaim()).toBe(true);
    expect(w.claimsDeferredFor(() => teamA)()).toBeNull();
    // The main profile's alias (default) was not touched either.
    expect(w.admissionFor(() => ({ ...settings, runtime: 'codex' })).allowsClaim()).toBe(true);
    expect(w.service.snapshot().accounts.map((a) => [a.key, a.admission.state])).toEqual([['codex:team-b', 'deferred']]);
    // Each profile's heartbeat says its own account's state.
    expect(w.accountStateFor(() => teamB)()).toMatch(/^reserve reached until /);
    expect(w.accountStateFor(() => teamA)()).toBe('unknown');
    expect(w.accountStateFor(() => ({ ...teamB, modelAccountState: 'shared team plan' }))()).toBe('shared team plan');
    await w.stop();
  });
});
