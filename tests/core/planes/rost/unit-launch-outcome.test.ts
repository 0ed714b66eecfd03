import { describe, expect, it } from 'vitest';
import type { DeliveryEvent } from '../../../../main/core/planes/rost/outbox';
import { deliveryOf, learnFromOutcome } from '../../../../main/core/planes/rost/unit-launch-outcome';
import type { LauncherHost } from '../../../../main/core/planes/rost/unit-launcher-deps';
import type { CommandRunner } from '../../../../main/core/exec/process-runner';
import { CapabilityDetector } from '../../../../main/core/runner/capabilities';
import { RuntimeBreaker } from '../../../../main/core/runner/runtime-breaker';
import { FakeClock } from '../../../helpers/fake-clock';
import { testLogging } from '../../../helpers/test-logger';

const base = { key: 'u1:1', unitId: 'u1', attempts: 2, enqueuedAt: '2026-12-07T10:00:00.000Z' };

describe("deliveryOf: the turn row's delivery from the outbox's word", () => {
  it('shows a delivered, a refused and a waiting result', () => {
    expect(deliveryOf({ ...base, state: 'delivered', outcome: 'accepted' }, null)).toEqual({
      state: 'delivered',
      attempts: 2,
      since: base.enqueuedAt,
      reason: null,
    });
    expect(deliveryOf({ ...base, state: 'refused', reason: 'result rejected (422)' }, null)).toEqual({
      state: 'refused',
      attempts: 2,
      since: base.enqueuedAt,
      reason: 'result rejected (422)',
    });
    expect(deliveryOf({ ...base, state: 'waiting', error: 'network down' }, null)).toEqual({
      state: 'waiting',
      attempts: 2,
      since: base.enqueuedAt,
      reason: 'network down',
    });
  });

  it('says a result was late when the lease was lost before it went out', () => {
    expect(deliveryOf({ ...base, state: 'delivered', outcome: 'already_recorded' }, 'lease expired')).toEqual({
      state: 'delivered',
      attempts: 2,
      since: base.enqueuedAt,
      reason: 'late: the control plane had already ended the unit (lease expired)',
      late: true,
    });
    const refused: DeliveryEvent = { ...base, state: 'refused', reason: 'unit not active' };
    expect(deliveryOf(refused, 'lease expired').reason).toBe('unit not active; the control plane had already ended the unit (lease expired)');
    expect(deliveryOf(refused, 'lease expired')).not.toHaveProperty('late');
  });
});

/** Both runtimes installed; their auth checks cannot tell (so a first auth failure decides). */
async function launcher() {
  const runner: CommandRunner = {
    which: async (name) => `/usr/bin/${name}`,
    run: async (_cmd, args) => {
      if (args[0] === '--version') return { code: 0, stdout: '1.2.3', stderr: '' };
      if (args[0] === 'auth') return { code: 0, stdout: '{}', stderr: '' };
      return { code: 0, stdout: '', stderr: '' };
    },
  };
  const clock = new FakeClock(10_000);
  const capabilities = new CapabilityDetector(runner, clock);
  await capabilities.refresh();
  const logging = testLogging();
  const notices: (string | null)[] = [];
  const host = { readinessChanged: (n: string | null) => notices.push(n) } as unknown as LauncherHost;
  const breaker = new RuntimeBreaker({ failures: 2 });
  return {
    deps: { capabilities, breaker, log: logging.log, clock, host },
    capabilities,
    breaker,
    clock,
    notices,
    warnings: () => logging.entries.filter((e) => e.level === 'warn').map((e) => e.msg),
  };
}

const failed = (runtime: string, reason: string, summary = reason) => ({ result: { status: 'failed', runtime }, view: { reason, summary, outputTail: '' } });

describe('learnFromOutcome: what a finished turn says about its runtime', () => {
  it('marks a runtime not signed in after a failure for want of credentials, once, and says readiness changed', async () => {
    const t = await launcher();
    learnFromOutcome(t.deps, failed('claude-cli', 'exit 1', 'Not logged in · Please run /login'), 9_000);
    expect(t.capabilities.peek()?.claude).toMatchObject({ signedIn: false });
    expect(t.capabilities.peek()?.codex.signedIn).toBeUndefined();
    expect(t.notices).toEqual([null]);
    expect(t.warnings()).toContain('a turn failed for want of credentials; not claiming for this runtime until it is signed in');
    // Already known signed out: nothing new to say.
    learnFromOutcome({ ...t.deps, breaker: new RuntimeBreaker({ failures: 99 }) }, failed('claude-cli', 'exit 1', 'invalid api key'), 9_000);
    expect(t.notices).toEqual([null]);
  });

  it('feeds quick failures to the breaker and passes its notice on when it trips', async () => {
    const t = await launcher();
    learnFromOutcome(t.deps, failed('codex-cli', 'exit 3 after 12 ms'), 9_000);
    expect(t.notices).toEqual([]);
    learnFromOutcome(t.deps, failed('codex-cli', 'exit 3 after 9 ms'), 9_500);
    expect(t.breaker.state.codex).toMatch(/claiming paused after 2 turns failed/);
    expect(t.notices).toHaveLength(1);
    expect(t.notices[0]).toMatch(/^Codex: claiming paused/);
  });

  it('does not count a timeout as a failure of the runtime, and a success closes the run of failures', async () => {
    const t = await launcher();
    learnFromOutcome(t.deps, failed('codex-cli', 'timed out after 1 s'), 9_900);
    learnFromOutcome(t.deps, failed('codex-cli', 'timed out after 1 s'), 9_900);
    expect(t.breaker.state).toEqual({});
    learnFromOutcome(t.deps, failed('codex-cli', 'exit 3'), 9_900);
    learnFromOutcome(t.deps, { result: { status: 'succeeded', runtime: 'codex-cli' }, view: {} }, 9_900);
    learnFromOutcome(t.deps, failed('codex-cli', 'exit 3'), 9_900);
    expect(t.breaker.state).toEqual({});
    expect(t.notices).toEqual([]);
  });

  it('learns nothing from a unit that never reached a runtime', async () => {
    const t = await launcher();
    learnFromOutcome(t.deps, { result: { status: 'failed' }, view: { reason: 'Not logged in', summary: 'Not logged in' } }, 9_000);
    expect(t.capabilities.peek()?.claude.signedIn).toBeUndefined();
    expect(t.breaker.state).toEqual({});
  });
});
