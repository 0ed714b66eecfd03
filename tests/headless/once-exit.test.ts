import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import { runOnce } from '../../main/headless/once';
import { SeedLines } from '../../main/headless/seed-lines';
import { startHarness, type Harness } from '../integration/core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

describe('--once', () => {
  // The host boots the core, then attaches its seed lines; the first heartbeat goes out
  // while the core is still starting its other services, so it can land before the lines
  // watch. `--once` then waited for the next beat, a heartbeat period later (30 s by default).
  it('ends after the first heartbeat even when that beat went through before it was watching', async () => {
    h = await startHarness({
      settings: { heartbeatMs: 30_000 },
      emulator: { config: { nextHeartbeatMs: 30_000, longPollMaxMs: 25_000 } },
      core: { runtimeBinaries: { claude: FAKE, codex: FAKE }, workAutoClaim: false },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('pairing did not start');
    h.emu.admin.approvePairing(pairing.userCode);
    const paired = await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null && s.runtimes !== null);

    const lines: string[] = [];
    const out = { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) };
    const seed = new SeedLines(h.core, out, 'state.json');
    expect(await runOnce(h.core, seed, out, {})).toBe(0);
    seed.close();
    const id = paired.identity!.runnerId;
    // The seed's lines for it, in the seed's order.
    expect(lines).toEqual([`paired runner_id=${id} state_file=state.json`, `heartbeat ok #1 runner_id=${id} claude=true codex=true`]);
    // Nothing was waiting on the server when it ended: no claim is held for it.
    expect(h.emu.admin.heldClaims()).toBe(0);
  }, 15_000);

  it('pairs the profile it was started on (`--profile x --once`), not `default`', async () => {
    h = await startHarness({ core: { profile: 'x', runtimeBinaries: { claude: FAKE, codex: FAKE }, workAutoClaim: false } });
    const lines: string[] = [];
    const out = { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) };
    const seed = new SeedLines(h.core, out, 'state.json');
    const ran = runOnce(h.core, seed, out, {});
    const waiting = await h.waitForEvent('runner:snapshot', (s) => s.profile === 'x' && s.pairing?.phase === 'waiting');
    if (waiting.pairing?.phase !== 'waiting') throw new Error('pairing did not start');
    h.emu.admin.approvePairing(waiting.pairing.userCode);
    expect(await ran).toBe(0);
    seed.close();
    expect(h.core.runner.profile.id).toBe('x');
    expect(h.core.runner.identity).not.toBeNull();
    expect(
      h.core.profiles
        .sessions()
        .filter((s) => s.identity !== null)
        .map((s) => s.profile.id),
    ).toEqual(['x']);
  }, 15_000);
});
