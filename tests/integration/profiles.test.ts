import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProfileSummary } from '../../shared/profiles';
import type { PairingState, RunnerSnapshot } from '../../shared/runner';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { finished, startHarness, type Harness } from './core-harness';

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));
const TIMED = fileURLToPath(new URL('../fixtures/timed-runtime.mjs', import.meta.url));

let h: Harness | null = null;
let other: RunningEmulator | null = null;
afterEach(async () => {
  await h?.close();
  await other?.close();
  h = other = null;
});

const emulatorConfig = { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2_000, caps: { tenant: 8, project: 8, defaultAccount: 8 } };

/** One host, two profiles: `default` against the harness's emulator, `lab` against a second one (another tenant). */
async function twoProfiles(settings: Record<string, unknown> = {}, runtime = FAKE): Promise<{ h: Harness; lab: RunningEmulator }> {
  const lab = await startEmulator({ config: emulatorConfig });
  const harness = await startHarness({
    settings: { maxSessions: 2, ...settings },
    emulator: { config: emulatorConfig },
    core: { runtimeBinaries: { claude: runtime, codex: runtime } },
  });
  const added = await harness.invoke<ProfileSummary>('profiles:add', { name: 'Lab', controlPlaneUrl: lab.url });
  expect(added).toMatchObject({ id: 'lab', name: 'Lab', connector: 'rost', status: { state: 'unpaired' }, controlPlaneUrl: lab.url });
  await harness.invoke('settings:update', { profile: 'lab', maxSessions: 2, heartbeatMs: 1000 });
  for (const [profile, emu] of [
    ['default', harness.emu],
    ['lab', lab],
  ] as const) {
    const pairing = await harness.invoke<PairingState>('pairing:start', { profile });
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    emu.admin.approvePairing(pairing.userCode);
    await harness.waitForEvent('runner:snapshot', (s) => s.profile === profile && s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
  }
  return { h: harness, lab };
}

describe('two profiles in one host', () => {
  it('each claims only its own control plane’s work, and the Turns rows say whose', async () => {
    const r = await twoProfiles();
    h = r.h;
    other = r.lab;
    const mine = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:home' });
    const theirs = other.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:lab' });
    const [a, b] = await Promise.all([finished(h, mine.id), finished(h, theirs.id)]);
    expect(a).toMatchObject({ phase: 'succeeded', profile: 'default' });
    expect(b).toMatchObject({ phase: 'succeeded', profile: 'lab' });
    const labRunner = (await h.invoke<RunnerSnapshot>('runner:snapshot', { profile: 'lab' })).identity!.runnerId;
    const homeRunner = (await h.invoke<RunnerSnapshot>('runner:snapshot')).identity!.runnerId;
    await other.admin.waitForEvent((e) => e.type === 'unit.result' && e.data.unit_id === theirs.id, { timeoutMs: 10_000, since: 0 });
    expect(other.admin.listResults({ unit_id: theirs.id })).toHaveLength(1);
    // Each control plane saw only its own runner.
    expect(other.admin.listRunners().map((x) => x.id)).toEqual([labRunner]);
    expect(h.emu.admin.listRunners().map((x) => x.id)).toEqual([homeRunner]);
    const list = await h.invoke<ProfileSummary[]>('profiles:list');
    expect(list.map((p) => [p.id, p.runnerId])).toEqual([
      ['default', homeRunner],
      ['lab', labRunner],
    ]);
  });

  it('pausing one leaves the other claiming; pause all stops both', async () => {
    const r = await twoProfiles();
    h = r.h;
    other = r.lab;
    await h.invoke('runner:pause', { profile: 'lab', minutes: null });
    const waiting = other.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:later' });
    const mine = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:now' });
    expect(await finished(h, mine.id)).toMatchObject({ profile: 'default', phase: 'succeeded' });
    expect(other.admin.getUnit(waiting.id)?.status).toBe('queued');
    const all = await h.invoke<ProfileSummary[]>('runner:pause-all', { minutes: null });
    expect(all.map((p) => p.status.state)).toEqual(['paused', 'paused']);
    await h.invoke('runner:resume', { profile: 'lab' });
    expect(await finished(h, waiting.id)).toMatchObject({ profile: 'lab', phase: 'succeeded' });
    expect((await h.invoke<RunnerSnapshot>('runner:snapshot')).status.state).toBe('paused');
  });

  it('the machine-wide cap holds with both profiles busy', async () => {
    const r = await twoProfiles({ machineMaxTurns: 2 });
    h = r.h;
    other = r.lab;
    for (let i = 0; i < 2; i++) {
      h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
      other.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    }
    let most = 0;
    const off = h.core.host.subscribe(() => {
      const running = h!.core.profiles.activeCount;
      most = Math.max(most, running);
    });
    await h.waitForEvent('profiles:changed', (list) => list.reduce((n, p) => n + p.active, 0) === 2);
    // Both profiles have work: each gets one of the two slots.
    await h.waitForEvent('profiles:changed', (list) => list.every((p) => p.active === 1));
    const claimed = [h.emu, other].map((e) => e.admin.listUnits({}).filter((u) => u.status === 'running' || u.status === 'claimed').length);
    expect(claimed).toEqual([1, 1]);
    off();
    expect(most).toBeLessThanOrEqual(2);
  });

  it('revoking one profile’s runner leaves the other paired', async () => {
    const r = await twoProfiles();
    h = r.h;
    other = r.lab;
    const lab = await h.invoke<RunnerSnapshot>('runner:snapshot', { profile: 'lab' });
    other.admin.revokeRunner(lab.identity!.runnerId);
    await h.waitForEvent('runner:snapshot', (s) => s.profile === 'lab' && s.status.state === 'revoked', 15_000);
    const home = await h.invoke<RunnerSnapshot>('runner:snapshot');
    expect(home.identity).not.toBeNull();
    expect(home.status.state).toBe('idle');
    const mine = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:still' });
    expect(await finished(h, mine.id)).toMatchObject({ profile: 'default', phase: 'succeeded' });
    // The tray's worst state is the revoked profile.
    expect(h.core.host.status().state).toBe('revoked');
  });

  it('quitting after the running turns drains every profile: each one’s turn finishes and is delivered, nothing new is claimed', async () => {
    const r = await twoProfiles({ quitDrainMs: 5 * 60_000 }, TIMED);
    h = r.h;
    other = r.lab;
    const mine = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:1200' });
    const theirs = other.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:1200' });
    await h.waitForEvent('profiles:changed', (list) => list.every((p) => p.active === 1));
    const later = other.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:wait:10' });
    const outcome = await h.core.quit('after-turns');
    expect(outcome).toEqual({ kind: 'stopped', finished: 2, canceled: 0, undelivered: 0 });
    expect(h.emu.admin.listResults({ unit_id: mine.id })).toMatchObject([{ status: 'succeeded' }]);
    expect(other.admin.listResults({ unit_id: theirs.id })).toMatchObject([{ status: 'succeeded' }]);
    expect(other.admin.getUnit(later.id)?.status).toBe('queued');
  });

  it('each profile’s claims are admitted against its own model account alias: only the limited one defers', async () => {
    const r = await twoProfiles({ runtime: 'claude', modelAccountAlias: 'team-a' });
    h = r.h;
    other = r.lab;
    await h.invoke('settings:update', { profile: 'lab', runtime: 'claude', modelAccountAlias: 'team-b' });
    // The lab's account reaches its limit (an hour to its reset): the turn says so, under the lab's alias.
    const limited = other.admin.enqueueTurnExecution({ brain: 'claude', prompt: `fake:json limit:${Math.ceil(Date.now() / 1000) + 3600}` });
    expect(await finished(h, limited.id)).toMatchObject({ profile: 'lab', phase: 'failed' });
    expect(other.admin.listResults({ unit_id: limited.id })[0]?.summary).toMatch(
      /^not run to the end: the usage limit of the claude account "team-b" was reached/,
    );
    const usage = await h.waitForEvent('usage:update', (u) => u.accounts.some((a) => a.key === 'claude:team-b' && a.admission.state === 'deferred'));
    expect(usage.accounts.find((a) => a.key === 'claude:team-a')?.admission.state ?? 'claiming').toBe('claiming');
    await h.waitForEvent(
      'runner:snapshot',
      (s) => s.profile === 'lab' && (s.status.reason ?? '').startsWith('Not claiming: Claude · team-b reached its usage limit'),
    );

    const waiting = other.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:after-reset' });
    const mine = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:team-a' });
    expect(await finished(h, mine.id)).toMatchObject({ profile: 'default', phase: 'succeeded' });
    expect(other.admin.getUnit(waiting.id)?.status).toBe('queued');
    expect((await h.invoke<RunnerSnapshot>('runner:snapshot')).status.reason ?? '').not.toMatch(/^Not claiming/);
  });
});
