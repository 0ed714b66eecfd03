import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import { statusLine } from '../../shared/status';
import type { QuitMode } from '../../main/core/quit-policy';
import { startHarness, type Harness } from './core-harness';

const TIMED = fileURLToPath(new URL('../fixtures/timed-runtime.mjs', import.meta.url));
const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function paired(runtime: string): Promise<Harness> {
  const harness = await startHarness({
    settings: { quitDrainMs: 5 * 60_000 },
    emulator: { config: { longPollMaxMs: 1000 } },
    core: { runtimeBinaries: { claude: runtime, codex: runtime } },
  });
  const pairing = await harness.invoke<PairingState>('pairing:start');
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  harness.emu.admin.approvePairing(pairing.userCode);
  await harness.waitForEvent('runner:snapshot', (s) => s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
  return harness;
}

describe('the one quit policy, asked through the contract', () => {
  it('"after the running turns": stops claiming, says what it waits for, delivers the result, then stops', async () => {
    h = await paired(TIMED);
    const quits: QuitMode[] = [];
    h.core.onQuit((mode) => quits.push(mode));
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:1500' });
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.started' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 });
    const waiting = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:10' });

    const status = await h.invoke('runner:quit', { mode: 'after-turns' });
    expect(status).toMatchObject({ state: 'draining', remaining: 1, mode: 'after-turns' });
    expect(statusLine(status as never)).toBe('Stopping: waiting for 1 turn (up to 5 min)');
    expect(quits).toEqual(['after-turns']);
    const outcome = await h.core.quit('after-turns');
    expect(outcome).toEqual({ kind: 'stopped', finished: 1, canceled: 0, undelivered: 0 });
    expect(h.emu.admin.listResults({ unit_id: unit.id })).toMatchObject([{ status: 'succeeded' }]);
    // Nothing new was claimed while it drained, and the control plane was told it is paused.
    expect(h.emu.admin.listUnits({}).find((u) => u.id === waiting.id)?.status).toBe('queued');
    const beats = h.emu.admin.listEvents({ type: 'runner.heartbeat', limit: 100_000 });
    expect(beats.at(-1)?.data.paused).toBe(true);
  });

  it('"now" cancels the running turn and reports it canceled before stopping', async () => {
    h = await paired(FAKE);
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.id === unit.id && t.phase === 'running'));
    await h.invoke('runner:quit', { mode: 'after-turns' });
    await h.invoke('runner:quit', { mode: 'now' });
    const outcome = await h.core.quit('after-turns');
    expect(outcome).toEqual({ kind: 'stopped', finished: 0, canceled: 1, undelivered: 0 });
    expect(h.emu.admin.listResults({ unit_id: unit.id })).toMatchObject([{ status: 'canceled' }]);
  });

  it('"cancel" calls a waiting quit off and work goes on', async () => {
    h = await paired(TIMED);
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:800' });
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.started' && e.data.unit_id === unit.id, { timeoutMs: 10_000, since: 0 });
    const quitting = h.core.quit('after-turns');
    await h.invoke('runner:quit', { mode: 'cancel' });
    expect(await quitting).toEqual({ kind: 'canceled' });
    const next = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:10' });
    await h.emu.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === next.id, { timeoutMs: 10_000, since: 0 });
  });
});
