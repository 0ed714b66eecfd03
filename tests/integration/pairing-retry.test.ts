import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState } from '../../shared/runner';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHarness, type Harness } from './core-harness';

let h: Harness | null = null;
let revived: RunningEmulator | null = null;
afterEach(async () => {
  await h?.close();
  await revived?.close();
  h = revived = null;
});

describe('pairing while the control plane cannot be reached', () => {
  it('plane down: says retrying with the error and the next attempt; plane up: the next attempt gets a code and it pairs', async () => {
    // An emulator that stops at once leaves an address where nothing listens (connection refused).
    const gone = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000 } });
    const port = Number(new URL(gone.url).port);
    await gone.close();
    h = await startHarness({ emu: gone });

    const first = await h.invoke<PairingState>('pairing:start');
    expect(first).toMatchObject({ phase: 'retrying', what: 'pairing', attempts: 1, lastError: expect.stringMatching(/ECONNREFUSED|refused/i) });
    const snapshot = await h.invoke<{ status: { state: string; reason: string } }>('runner:snapshot');
    expect(snapshot.status).toMatchObject({ state: 'pairing', reason: expect.stringContaining('Cannot reach the control plane') });

    revived = await startEmulator({ port, config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000 } });
    const waiting = await h.waitForEvent('runner:snapshot', (s) => s.pairing?.phase === 'waiting');
    if (waiting.pairing?.phase !== 'waiting') throw new Error('not waiting');
    revived.admin.approvePairing(waiting.pairing.userCode);
    const paired = await h.waitForEvent('runner:snapshot', (s) => s.identity !== null);
    expect(paired.identity).toMatchObject({ controlPlane: revived.url });
  });

  it('Retry now makes the waiting start at once (the command answers with the code)', async () => {
    h = await startHarness();
    h.emu.admin.addFault({ route: '/api/runner/pairing/start', error: { rate: 1, status: 503 }, remaining: 1 });
    expect(await h.invoke<PairingState>('pairing:start')).toMatchObject({ phase: 'retrying', attempts: 1, lastError: expect.stringContaining('503') });
    const now = await h.invoke<PairingState>('pairing:retry-now');
    expect(now).toMatchObject({ phase: 'waiting', userCode: expect.any(String) });
  });

  it('a failing start (503) is tried again by itself with backoff, and pairs', async () => {
    h = await startHarness();
    h.emu.admin.addFault({ route: '/api/runner/pairing/start', error: { rate: 1, status: 503 }, remaining: 2 });
    const first = await h.invoke<PairingState>('pairing:start');
    expect(first).toMatchObject({ phase: 'retrying', attempts: 1 });
    await h.waitForEvent('runner:snapshot', (s) => s.pairing?.phase === 'retrying' && s.pairing.attempts === 2);
    const waiting = await h.waitForEvent('runner:snapshot', (s) => s.pairing?.phase === 'waiting');
    if (waiting.pairing?.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(waiting.pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.identity !== null);
  });

  it('Retry now with nothing waiting says so', async () => {
    h = await startHarness();
    await expect(h.invoke('pairing:retry-now')).rejects.toThrow(/nothing_to_retry/);
  });
});
