import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorConfig } from '../../emulator/config';
import type { PairingState } from '../../shared/runner';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
// Shrunk cadence: a 1 s heartbeat beside a 1.5 s long-poll (a server's 30 s and 60 s, scaled down).
const LONG_POLL_MS = 1_500;

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

/** A paired, idle runner whose every control-plane request is recorded by path. */
async function idleRunner(config: Partial<EmulatorConfig>): Promise<{ h: Harness; paths: string[] }> {
  const paths: string[] = [];
  const harness = await startHarness({
    emulator: { config: { longPollMaxMs: LONG_POLL_MS, nextHeartbeatMs: 1_000, ...config } },
    core: {
      runtimeBinaries: { claude: FAKE, codex: FAKE },
      fetch: (input, init) => {
        paths.push(new URL(input).pathname);
        return fetch(input, init);
      },
    },
  });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
  return { h: harness, paths };
}

/** The requests the runner makes while the emulator sees `n` more claims held. */
async function acrossHeldClaims(harness: Harness, paths: string[], n: number): Promise<string[]> {
  let since = (await harness.emu.admin.waitForEvent('claim.held', { timeoutMs: 10_000 })).seq;
  const from = paths.length;
  for (let i = 0; i < n; i++) since = (await harness.emu.admin.waitForEvent('claim.held', { since, timeoutMs: 10_000 })).seq;
  return paths.slice(from);
}

const CLAIM = '/api/runner/work-orders/claim';
const HEARTBEAT = '/api/runner/heartbeat';

describe('an idle runner', () => {
  it('sends one request per long-poll when the server lets the held claim carry the heartbeat [v1]', async () => {
    const runner = await idleRunner({});
    h = runner.h;
    const runnerId = h.emu.admin.listRunners()[0]!.id;
    const beatsBefore = h.emu.admin.listHeartbeats({ runner_id: runnerId }).length;
    const sent = await acrossHeldClaims(h, runner.paths, 3);
    // Three long-polls held in full (3 × 1.5 s, three 1 s beats due): only the claims went out.
    expect(sent).toEqual([CLAIM, CLAIM, CLAIM]);
    // Each carried the heartbeat, recorded as one, and the runner counts it as a good beat.
    expect(h.emu.admin.listHeartbeats({ runner_id: runnerId }).length - beatsBefore).toBeGreaterThanOrEqual(3);
    const snapshot = await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.status.state !== 'offline');
    expect(snapshot.heartbeat.consecutiveFailures).toBe(0);
  });

  it('keeps the seed cadence (a heartbeat every heartbeat_ms beside the long-poll) against a server without it', async () => {
    const runner = await idleRunner({ claimCarriesHeartbeat: false });
    h = runner.h;
    const sent = await acrossHeldClaims(h, runner.paths, 3);
    expect(sent.filter((p) => p === CLAIM)).toHaveLength(3);
    // 4.5 s of long-polls beside a 1 s beat: at least three beats of their own.
    expect(sent.filter((p) => p === HEARTBEAT).length).toBeGreaterThanOrEqual(3);
  });

  it('still takes new work at once from the held claim that carries its heartbeat', async () => {
    const runner = await idleRunner({});
    h = runner.h;
    await h.emu.admin.waitForEvent('claim.held', { timeoutMs: 10_000 });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:hi' });
    const done = await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.id === unit.id), 15_000);
    expect(done.finished.find((t) => t.id === unit.id)?.phase).toBe('succeeded');
  });
});
