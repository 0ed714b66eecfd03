import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import { commandWorks, probeIsolation } from '../../main/core/exec/isolation';
import { createCommandRunner } from '../../main/core/exec/process-runner';
import { startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('the isolation level, as the runner reports it', () => {
  it('the window’s snapshot and the heartbeat the control plane stores say how each runtime is isolated', async () => {
    const expected = (await probeIsolation({ platform: process.platform, which: createCommandRunner().which, works: commandWorks })).level;
    h = await startHarness({ core: { runtimeBinaries: { claude: FAKE, codex: FAKE } } });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    const paired = await h.waitForEvent('runner:snapshot', (s: RunnerSnapshot) => s.identity !== null && s.heartbeat.lastOkAt !== null && s.runtimes !== null);
    expect(paired.runtimes?.claude).toMatchObject({ installed: true, isolation: expected });
    const stored = h.emu.admin.listRunners().find((r) => r.id === paired.identity!.runnerId);
    expect(stored?.telemetry?.isolation).toEqual({ claude: expected, codex: expected });
    // The seed's capability shape is unchanged.
    expect(stored?.capabilities?.claude).toMatchObject({ installed: true });
    expect(stored?.capabilities?.claude).not.toHaveProperty('isolation');
  });
});
