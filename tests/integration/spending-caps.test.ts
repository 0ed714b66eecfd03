import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { UsageSnapshot } from '../../shared/usage';
import { localPeriods } from '../../main/core/usage/usage-book';
import { JumpClock } from '../helpers/jump-clock';
import { finished, pairWithClaude, startHarness, twoBeats, type Harness } from './core-harness';

// The real core against the emulator with a daily token cap: a claude turn reports its
// tokens (input with cache 17, output 7: 24 tokens), which reaches a cap of 20; claims then
// wait for the account's day to end (local midnight) while the next unit stays queued, and
// it is claimed once midnight has passed. The core's clock is the real one, set forward to
// just before midnight so the test does not wait a day.

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('spending caps against the emulator', () => {
  it('a reached daily token cap defers claims until local midnight, then the waiting unit runs', async () => {
    const clock = new JumpClock();
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 1, spendDailyTokenCap: 20 },
      emulator: { config: { longPollMaxMs: 1_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE }, clock },
    });
    await pairWithClaude(h);

    const first = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:spent' });
    expect((await finished(h, first.id)).phase).toBe('succeeded');
    const midnight = localPeriods(clock.now()).nextDay;
    const deferred = await h.waitForEvent('usage:update', (u) => u.accounts.some((a) => a.key === 'claude:default' && a.admission.state === 'deferred'));
    const account = deferred.accounts.find((a) => a.key === 'claude:default')!;
    expect(account.admission).toMatchObject({ state: 'deferred', cause: 'cap', resumesAt: midnight });
    expect(account.admission.state === 'deferred' && account.admission.reason).toMatch(/^Daily token cap reached \(24 of 20\) — resumes at /);
    expect(account.caps).toEqual([expect.objectContaining({ id: 'daily-tokens', used: 24, limit: 20, reached: true, resetsAt: midnight })]);

    // Queued while the cap holds: not claimed, heartbeat after heartbeat.
    const waiting = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:next-day' });
    await twoBeats(h);
    expect(h.emu.admin.getUnit(waiting.id)?.status).toBe('queued');
    const snapshot = await h.invoke<UsageSnapshot>('usage:get');
    expect(snapshot.accounts.find((a) => a.key === 'claude:default')?.admission).toMatchObject({ state: 'deferred', cause: 'cap' });

    // The evening: a second and a half before midnight. Nothing is claimed before it; the unit is, after.
    clock.jumpTo(midnight - 1_500);
    const after = await finished(h, waiting.id);
    expect(after.phase).toBe('succeeded');
    // It started on the runner's clock after midnight, not in the second and a half before it.
    expect(Date.parse(after.startedAt)).toBeGreaterThanOrEqual(midnight);
    const claims = h.emu.admin.listEvents({ type: 'unit.claimed', limit: 100 }).filter((e) => JSON.stringify(e).includes(waiting.id));
    expect(claims).toHaveLength(1);
    // Its tokens count in the new day alone (24, not 48): the cap holds again, until the next midnight.
    const tomorrow = localPeriods(midnight).nextDay;
    const again = await h.waitForEvent('usage:update', (u) =>
      u.accounts.some((a) => a.key === 'claude:default' && a.admission.state === 'deferred' && a.admission.resumesAt === tomorrow),
    );
    expect(again.accounts.find((a) => a.key === 'claude:default')?.caps).toEqual([
      expect.objectContaining({ id: 'daily-tokens', used: 24, reached: true, resetsAt: tomorrow }),
    ]);
  });
});
