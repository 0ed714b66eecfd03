import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import { startHarness, type Harness } from './core-harness';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const REAL_CLAUDE = path.join(repoRoot, 'node_modules', '.bin', 'claude');
const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const NOWHERE = path.join(repoRoot, 'no-such-runtime');

let h: Harness | null = null;
const temps: string[] = [];
afterEach(async () => {
  await h?.close();
  h = null;
  temps.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});

async function pair(harness: Harness): Promise<void> {
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
}

/** The next `count` heartbeats the emulator records from now. */
async function heartbeats(harness: Harness, count: number) {
  const out = [];
  let since = harness.emu.admin.listEvents({ limit: 100_000 }).at(-1)?.seq ?? 0;
  for (let i = 0; i < count; i++) {
    const e = await harness.emu.admin.waitForEvent('runner.heartbeat', { timeoutMs: 10_000, since });
    out.push(e);
    since = e.seq;
  }
  return out;
}

describe('runtime readiness', () => {
  it('a claude that is installed but not signed in claims none of a queue of 20 units, and says why', async () => {
    // The real CLI with an empty home and no key: `claude auth status` says loggedIn: false.
    const home = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-claude-home-'));
    temps.push(home);
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 4 },
      emulator: { config: { longPollMaxMs: 1000 } },
      core: {
        runtimeBinaries: { claude: REAL_CLAUDE, codex: NOWHERE },
        runtimeEnv: {
          HOME: home,
          ANTHROPIC_API_KEY: '',
          ANTHROPIC_AUTH_TOKEN: '',
          CLAUDE_CODE_OAUTH_TOKEN: '',
          DISABLE_AUTOUPDATER: '1',
          DISABLE_TELEMETRY: '1',
        },
      },
    });
    const units = Array.from({ length: 20 }, () => h!.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'hello' }));
    await pair(h);
    const snapshot = await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.runtimes !== null, 30_000);
    expect(snapshot.runtimes?.claude).toMatchObject({
      installed: true,
      signedIn: false,
      ready: false,
      problem: 'installed, not signed in — run `claude` and sign in',
    });
    // Three heartbeats later nothing was claimed, and the control plane was told claude is not usable.
    const beats = await heartbeats(h, 3);
    expect(beats.every((b) => b.data.paused === false)).toBe(true);
    expect(h.emu.admin.listUnits({}).filter((u) => units.some((x) => x.id === u.id) && u.status !== 'queued')).toEqual([]);
    const runner = h.emu.admin.listRunners().find((r) => r.name === 'it-runner');
    expect(runner?.capabilities).toMatchObject({ claude: { installed: false, version: expect.any(String) } });
    const status = (await h.invoke<RunnerSnapshot>('runner:snapshot')).status;
    expect(status).toMatchObject({ state: 'idle', reason: 'Not taking work: Claude Code: installed, not signed in — run `claude` and sign in.' });
  }, 60_000);

  it('the circuit breaker: three quick failures for one reason pause claiming for that runtime, with a notice', async () => {
    h = await startHarness({
      settings: { runtime: 'claude', maxSessions: 1 },
      emulator: { config: { longPollMaxMs: 1000 } },
      core: { runtimeBinaries: { claude: FAKE, codex: NOWHERE } },
    });
    const units = Array.from({ length: 20 }, () => h!.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:crash' }));
    await pair(h);
    const notice = await h.waitForEvent('runner:notice', () => true, 30_000);
    expect(notice).toMatchObject({
      kind: 'runtime-paused',
      message: expect.stringContaining('Claude Code: claiming paused after 3 turns failed within a minute of starting'),
    });
    await heartbeats(h, 2);
    const mine = h.emu.admin.listUnits({}).filter((u) => units.some((x) => x.id === u.id));
    expect(mine.filter((u) => u.status === 'failed')).toHaveLength(3);
    expect(mine.filter((u) => u.status === 'queued')).toHaveLength(17);
    const snapshot = await h.invoke<RunnerSnapshot>('runner:snapshot');
    expect(snapshot.runtimes?.claude).toMatchObject({ installed: true, ready: false, problem: expect.stringContaining('claiming paused') });
    expect(snapshot.status.reason).toContain('Not taking work: Claude Code: claiming paused');
    const runner = h.emu.admin.listRunners().find((r) => r.name === 'it-runner');
    expect(runner?.capabilities).toMatchObject({ claude: { installed: false } });

    // "Check again" closes the breaker: claiming goes on (and trips again on the same fault).
    await h.invoke('runtimes:refresh');
    await h.waitForEvent('runner:notice', () => h!.events.filter((e) => e.event === 'runner:notice').length === 2, 30_000);
    // The breaker trips on the third failure; that failure's result reaches the plane beside the notice, not before it.
    await expect
      .poll(() => h!.emu.admin.listUnits({}).filter((u) => units.some((x) => x.id === u.id) && u.status === 'failed').length, { timeout: 30_000 })
      .toBe(6);
  }, 60_000);
});
