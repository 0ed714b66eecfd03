import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import { filesUnder, startHarness, type Harness } from './core-harness';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function pairWithApproval(harness: Harness): Promise<RunnerSnapshot> {
  const pairing = await harness.invoke<PairingState>('pairing:start');
  expect(pairing).toMatchObject({ phase: 'waiting', userCode: expect.stringMatching(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/) });
  if (pairing.phase !== 'waiting') throw new Error('not waiting');
  expect(pairing.verificationUri).toBe(`${harness.emu.url}/device`);
  harness.emu.admin.approvePairing(pairing.userCode);
  return harness.waitForEvent('runner:snapshot', (s) => s.identity !== null && s.heartbeat.lastOkAt !== null);
}

describe('pairing and heartbeats against the emulator', () => {
  it('pairs by device code, keeps the secret in the chosen store, and heartbeats capacity telemetry', async () => {
    h = await startHarness();
    const paired = await pairWithApproval(h);
    expect(paired.identity).toMatchObject({ name: 'it-runner', controlPlane: h.emu.url, tenantName: 'Development tenant' });
    expect(paired.secretStorage).toMatchObject({ backend: 'file', warning: expect.stringContaining('owner-only file') });
    expect(paired.status.state).toBe('idle');

    const [observation] = h.emu.admin.listHeartbeats({ runner_id: paired.identity!.runnerId });
    expect(observation).toBeDefined();
    expect(JSON.stringify(observation)).toContain('"max_sessions"');

    // The secret is only in the file store, which is owner-only.
    const runner = h.emu.admin.listRunners()[0]!;
    expect(runner.id).toBe(paired.identity!.runnerId);
    const secretFiles = filesUnder(h.dataDir).filter((f) => f.file.startsWith('secrets'));
    expect(secretFiles.length).toBeGreaterThan(0);
    for (const f of secretFiles) expect(statSync(path.join(h.dataDir, f.file)).mode & 0o077).toBe(0);
  });

  it('stops with a clear state when the code is denied', async () => {
    h = await startHarness();
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.denyPairing(pairing.userCode);
    const denied = await h.waitForEvent('runner:snapshot', (s) => s.pairing?.phase === 'denied');
    expect(denied.status.state).toBe('unpaired');
    expect(denied.identity).toBeNull();
  });

  it('slows down by 5 s when the control plane says slow_down, and still pairs', async () => {
    h = await startHarness();
    h.emu.admin.addFault({ route: '/api/runner/pairing/claim', error: { rate: 1, status: 400, body: { error: 'slow_down' } }, remaining: 1 });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    const slowed = await h.waitForEvent('runner:snapshot', (s) => s.pairing?.phase === 'waiting' && s.pairing.intervalSeconds === pairing.intervalSeconds + 5);
    expect(slowed.status.state).toBe('pairing');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.identity !== null, 15_000);
  });

  it('ends expired when nobody approves in time', async () => {
    h = await startHarness({ emulator: { config: { pairingIntervalSec: 1, pairingExpiresInSec: 2 } } });
    await h.invoke('pairing:start');
    await h.waitForEvent('runner:snapshot', (s) => s.pairing?.phase === 'expired', 8_000);
  });

  it('refuses a pairing for another tenant than the expected one', async () => {
    h = await startHarness({ settings: { expectedTenantId: 'some-other-tenant' } });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    const failed = await h.waitForEvent('runner:snapshot', (s) => s.pairing?.phase === 'failed');
    expect(failed.pairing).toMatchObject({ message: expect.stringContaining('another tenant') });
    expect(failed.identity).toBeNull();
  });

  it('a revoked secret (401) drops the runner back to unpaired and says to pair again', async () => {
    h = await startHarness();
    const paired = await pairWithApproval(h);
    h.emu.admin.revokeRunner(paired.identity!.runnerId);
    const revoked = await h.waitForEvent('runner:snapshot', (s) => s.status.state === 'revoked');
    expect(revoked.status.reason).toContain('Pair again');
    expect(revoked.identity).toBeNull();
  });

  it('unpair revokes at the server, then forgets locally', async () => {
    h = await startHarness();
    const paired = await pairWithApproval(h);
    await h.invoke('runner:unpair', { force: false });
    const snapshot = await h.invoke<RunnerSnapshot>('runner:snapshot');
    expect(snapshot.identity).toBeNull();
    expect(snapshot.status.state).toBe('unpaired');
    expect(h.emu.admin.listRunners().find((r) => r.id === paired.identity!.runnerId)).toMatchObject({ revoked_at: expect.any(String) });
  });

  it('stays paired across a restart of the host', async () => {
    h = await startHarness();
    const paired = await pairWithApproval(h);
    await h.restart();
    const again = await h.waitForEvent('runner:snapshot', (s) => s.heartbeat.lastOkAt !== null);
    expect(again.identity?.runnerId).toBe(paired.identity!.runnerId);
  });

  it('goes offline with a retry time under network faults, then recovers', async () => {
    h = await startHarness();
    await pairWithApproval(h);
    h.emu.admin.addFault({ route: '/api/runner/heartbeat', error: { rate: 1, status: 503 } });
    const offline = await h.waitForEvent('runner:snapshot', (s) => s.status.state === 'offline');
    expect(offline.status).toMatchObject({ retryAt: expect.any(String) });
    h.emu.admin.clearFaults();
    await h.waitForEvent('runner:snapshot', (s) => s.status.state === 'idle' && s.heartbeat.consecutiveFailures === 0 && s !== offline, 15_000);
  });
});
