import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { systemClock, type Clock } from '../../main/core/base/ports';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import { statusLine } from '../../shared/status';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function paired(): Promise<Harness> {
  const harness = await startHarness({ core: { runtimeBinaries: { claude: FAKE, codex: FAKE } }, emulator: { config: { longPollMaxMs: 1000 } } });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
  return harness;
}

function lastSeq(harness: Harness): number {
  return harness.emu.admin.listEvents({ limit: 100_000 }).at(-1)?.seq ?? 0;
}

/** The next `count` heartbeats the emulator records after `since`. */
async function heartbeats(harness: Harness, since: number, count: number) {
  const seen: boolean[] = [];
  let from = since;
  while (seen.length < count) {
    const e = await harness.emu.admin.waitForEvent('runner.heartbeat', { timeoutMs: 10_000, since: from });
    seen.push(e.data.paused as boolean);
    from = e.seq;
  }
  return seen;
}

describe('a pause survives a restart', () => {
  it('keeps pause, end time and note; the control plane keeps seeing paused and gets no claims', async () => {
    h = await paired();
    await h.invoke('runner:pause', { minutes: 30, note: 'deploy window' });
    const before = await h.invoke<RunnerSnapshot>('runner:snapshot');
    expect(before.paused).toMatchObject({ by: 'you', note: 'deploy window', until: expect.any(String), at: expect.any(String) });

    const since = lastSeq(h);
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:x' });
    expect(await heartbeats(h, since, 2)).toEqual([true, true]);
    expect(h.emu.admin.listUnits({}).find((u) => u.id === unit.id)?.status).toBe('queued');

    const after = await h.invoke<RunnerSnapshot>('runner:snapshot');
    expect(after.paused).toEqual(before.paused);
    expect(after.status).toMatchObject({ state: 'paused', by: 'you', until: before.paused!.until, at: before.paused!.at });
    expect(after.status.reason).toContain('deploy window');
    expect(statusLine(after.status)).toMatch(/^Paused by you at \d\d:\d\d · resumes \d\d:\d\d$/);

    // Resume is durable too: the next restart claims at once.
    await h.invoke('runner:resume');
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE } });
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 });
  });

  it('a timed pause that ended while the host was off is over on start', async () => {
    h = await paired();
    await h.invoke('runner:pause', { minutes: 30 });
    const since = lastSeq(h);
    // The host comes back 31 minutes later.
    const later: Clock = { ...systemClock, now: () => Date.now() + 31 * 60_000 };
    await h.restart({ runtimeBinaries: { claude: FAKE, codex: FAKE }, clock: later });
    expect(await heartbeats(h, since, 1)).toEqual([false]);
    const snapshot = await h.invoke<RunnerSnapshot>('runner:snapshot');
    expect(snapshot.paused).toBeNull();
    expect(snapshot.status.state).not.toBe('paused');
  });
});
