import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import { startHarness, type Harness } from './core-harness';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('renaming a paired runner', () => {
  it('reaches the control plane in the next heartbeat, and the window shows the new name', async () => {
    // The name comes from the stored settings here (an override would pin it).
    h = await startHarness({ settings: { runnerName: undefined as never } });
    await h.invoke('settings:update', { runnerName: 'before-rename' });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    const paired = await h.waitForEvent('runner:snapshot', (s: RunnerSnapshot) => s.identity !== null && s.heartbeat.lastOkAt !== null);
    expect(h.emu.admin.listRunners()[0]?.name).toBe('before-rename');

    await h.invoke('settings:update', { runnerName: 'studio-mac' });
    await h.waitForEvent('runner:snapshot', (s: RunnerSnapshot) => s.identity?.name === 'studio-mac');
    const serverName = () => h!.emu.admin.listRunners().find((r) => r.id === paired.identity!.runnerId)?.name;
    await h.emu.admin.waitForEvent((e) => e.type === 'runner.heartbeat' && serverName() === 'studio-mac', { timeoutMs: 10_000, since: 0 });
    expect(h.emu.admin.listHeartbeats({ runner_id: paired.identity!.runnerId }).map((b) => b.runner_name)).toContain('studio-mac');
  });
});
