import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import type { UsageSnapshot } from '../../shared/usage';
import { finished, startHarness, type Harness } from './core-harness';

// The real core against the emulator: a claude turn fails with claude's usage-limit message
// (with its reset time); the runner reports the unit as not run because of the limit, marks
// the account limited (the heartbeat says so), claims nothing until the reset instant, and
// claims the waiting unit once it has passed.

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('usage limits against the emulator', () => {
  it('a usage-limit failure defers claiming until the reset, then the waiting unit runs', async () => {
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 1 },
      emulator: { config: { longPollMaxMs: 2_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);

    // Claude's own shape: the reset instant after the bar, in unix seconds, a few seconds ahead.
    const resetSec = Math.ceil(Date.now() / 1000) + 3;
    const limited = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: `fake:json limit:${resetSec}` });
    const view = await finished(h, limited.id);
    expect(view.phase).toBe('failed');
    const [result] = h.emu.admin.listResults({ unit_id: limited.id });
    expect(result?.summary).toMatch(/^not run to the end: the usage limit of the claude account "default" was reached; it resets at /);

    const deferred = await h.waitForEvent('usage:update', (u) => u.accounts.some((a) => a.key === 'claude:default' && a.admission.state === 'deferred'));
    const account = deferred.accounts.find((a) => a.key === 'claude:default')!;
    expect(account.limited).toMatchObject({ until: resetSec * 1000, message: `Claude AI usage limit reached|${resetSec}` });

    // Queued while limited: not claimed before the reset instant.
    const waiting = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:after-reset' });
    const after = await finished(h, waiting.id);
    expect(after.phase).toBe('succeeded');
    // It was claimed only once the reset instant had passed.
    expect(Date.parse(after.startedAt)).toBeGreaterThanOrEqual(resetSec * 1000);
    // The heartbeats in between carried the measured state, with the reset time.
    const states = h.emu.admin.listHeartbeats({ limit: 50 }).map((o) => o.model_account_state);
    expect(states).toContain(`limited until ${new Date(resetSec * 1000).toISOString().slice(0, 16)}Z`);
    const snapshot = await h.invoke<UsageSnapshot>('usage:get');
    expect(snapshot.accounts.find((a) => a.key === 'claude:default')).toMatchObject({ admission: { state: 'claiming' }, limited: null, today: { turns: 2 } });
  });

  it('with runtime auto, a limited claude account sends units without a brain to codex instead', async () => {
    h = await startHarness({
      settings: { runtime: 'auto', maxSessions: 1 },
      emulator: { config: { longPollMaxMs: 2_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE } },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true && s.runtimes.codex.installed);

    const resetSec = Math.ceil(Date.now() / 1000) + 3600;
    const limited = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: `fake:json limit:${resetSec}` });
    expect((await finished(h, limited.id)).phase).toBe('failed');
    await h.waitForEvent('usage:update', (u) => u.accounts.some((a) => a.key === 'claude:default' && a.admission.state === 'deferred'));

    const auto = h.emu.admin.enqueueTurnExecution({ brain: 'auto', prompt: 'fake:text result:on-codex' });
    const view = await finished(h, auto.id);
    expect(view).toMatchObject({ phase: 'succeeded', runtime: 'codex' });
    // The next heartbeats say that claude is limited while codex works.
    const saysLimited = () => /^(unknown|available); claude limited until /.test(h!.emu.admin.listHeartbeats({ limit: 1 })[0]?.model_account_state ?? '');
    await h.emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && saysLimited(), { timeoutMs: 10_000, since: 0 });
  });
});
