import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { healthz } from '../../main/headless/health';
import { SECHROOM_TOKEN_REJECTED } from '../../main/core/planes/sechroom/sechroom-auth';
import { MACHINE_FULL } from '../../main/core/planes/sechroom/machine-slot';
import { FLEET_NEEDS_INSTANCES } from '../../main/core/planes/sechroom/fleet-config';
import { TTL_RANGE } from '../../shared/sechroom-instance-settings';
import { slug } from '../../main/core/delivery/delivery-texts';
import { GitDelivery } from '../../main/core/delivery/git-delivery';
import type { ProfileSummary } from '../../shared/profiles';
import type { PairingState } from '../../shared/runner';
import type { TranscriptView } from '../../shared/transcript';
import type { TurnsPage, TurnView } from '../../shared/turns';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { filesUnder, startHarness, type Harness } from './core-harness';
import { gitOrigin, type GitOrigin } from './git-origin';
import { APP_SERVER_STUB, startSechroomHost } from './sechroom-host';

// A Rost profile and a Sechroom profile in one host: the real core, the real emulator
// (Rost and its `/sechroom` Work Layer), each completing its own work. The Sechroom turn
// runs on the scripted codex app-server (tests/stubs) in the task's git worktree, and is
// delivered to `task/<slug>` on a local bare origin.

const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

let h: Harness | null = null;
let emu: RunningEmulator | null = null;
let repo: GitOrigin | null = null;
afterEach(async () => {
  await h?.close();
  await emu?.close();
  repo?.cleanup();
  h = emu = repo = null;
});

function finished(harness: Harness, match: (t: TurnView) => boolean): Promise<TurnView> {
  return harness.waitForEvent('turns:update', (u) => u.finished.some(match), 30_000).then((u) => u.finished.find(match)!);
}

/**
 * A host with one Sechroom profile, `work`, signed in by SECHROOM_TOKEN, its turns run by
 * the app-server stub playing `scenario`, its root a git checkout with an origin.
 * `beforeConfigure` runs between adding the profile and configuring it.
 */
async function sechroomHost(
  scenario: object,
  instance: Record<string, unknown> = {},
  beforeConfigure?: (harness: Harness) => Promise<unknown>,
): Promise<{ h: Harness; emu: RunningEmulator; git: GitOrigin }> {
  const host = await startSechroomHost({ scenario, instance, ...(beforeConfigure ? { beforeConfigure } : {}) });
  [h, emu, repo] = [host.h, host.emu, host.git];
  return host;
}

describe('a Rost profile and a Sechroom profile in one host', () => {
  it('each completes its own work; the Sechroom task is delivered to its branch and its completion carries the note', async () => {
    const git = gitOrigin();
    repo = git;
    const scenario = { turn: 'closeout-on-nudge', writeFile: { name: 'CHANGES.md', text: 'exported\n' } };
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000 } });
    const minted = emu.sechroom.mintToken();
    h = await startHarness({
      emu,
      settings: { maxSessions: 2 },
      core: {
        runtimeBinaries: { claude: FAKE, codex: FAKE },
        runtimeEnv: { CODEX_STUB_SCENARIO: JSON.stringify(scenario) },
        env: { ...process.env, SECHROOM_TOKEN: minted.access_token },
      },
    });

    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.profile === 'default' && s.heartbeat.longPoll && s.runtimes?.claude.installed === true);

    const added = await h.invoke<ProfileSummary>('profiles:add', { name: 'Work', connector: 'sechroom' });
    expect(added).toMatchObject({ id: 'work', connector: 'sechroom', status: { state: 'unpaired' } });
    // The seed's validation and messages.
    const bad = await h.core.host.invoke('sechroom:configure', {
      profile: 'work',
      baseUrl: h.emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-a', root: git.root, heartbeatIntervalSeconds: 120 },
    });
    expect(bad).toMatchObject({ ok: false, error: { message: '--heartbeat-interval must be shorter than the 120s lease TTL' } });
    // codex without its sandbox is the operator's act: a script cannot turn it on, the window needs a challenge.
    const fullAccess = {
      profile: 'work',
      baseUrl: h.emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-a', root: git.root, sandbox: 'danger-full-access' },
    };
    expect(await h.core.host.invoke('sechroom:configure', fullAccess)).toMatchObject({ ok: false, error: { code: 'confirm_widening' } });
    expect(await h.core.host.invoke('settings:widening-challenge', {})).toMatchObject({ ok: false, error: { code: 'window_only' } });
    expect(await h.core.host.invoke('sechroom:configure', { ...fullAccess, confirmWidening: 'guessed' }, 'window')).toMatchObject({
      ok: false,
      error: { code: 'confirm_widening' },
    });
    const configured = await h.invoke<ProfileSummary>('sechroom:configure', {
      profile: 'work',
      baseUrl: h.emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-a', root: git.root, pollIntervalSeconds: 1, codexBin: APP_SERVER_STUB },
      raisePr: false,
    });
    expect(configured).toMatchObject({ id: 'work', connector: 'sechroom', controlPlaneUrl: h.emu.sechroomUrl });
    await h.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'work' && p.runnerId !== null && p.status.state === 'idle'));

    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:json result:rost-done' });
    const task = h.emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export invoices as CSV.', acceptance: 'A CSV downloads.' });
    const [rost, sechroom] = await Promise.all([finished(h, (t) => t.id === unit.id), finished(h, (t) => t.plane === 'sechroom' && t.phase === 'succeeded')]);
    expect(rost).toMatchObject({ profile: 'default', phase: 'succeeded' });
    const branch = `task/${slug(task.memoryId)}`;
    expect(sechroom).toMatchObject({
      profile: 'work',
      title: 'Add CSV export',
      verdict: 'pass',
      leaseState: 'completed',
      git: { branch, pushed: true, prUrl: null, base: { ref: 'main' }, keptWorktree: null },
    });

    // The Work Layer has the completion, its text ending with the delivery note.
    const [completion] = h.emu.sechroom.listCompletions({ memory_id: task.memoryId });
    expect(completion).toMatchObject({ verdict: 'pass' });
    expect(completion!.text).toMatch(new RegExp(`\\n\\nDelivery: .*${branch.replace('/', '\\/')}`));
    expect(completion!.text).toContain(sechroom.git!.note);
    // The branch is on origin with the seed's message; the operator's checkout never saw the file.
    const subject = git.git(git.origin, 'log', '-1', '--format=%s%n%b', branch);
    expect(subject).toContain(`task(${task.memoryId}): Add CSV export [verdict:pass]`);
    expect(subject).toContain('Delivered-By: sechroom executor run (codex-a)');
    expect(git.git(git.origin, 'show', `${branch}:CHANGES.md`)).toBe('exported\n');
    expect(() => readFileSync(path.join(git.root, 'CHANGES.md'))).toThrow();
    expect(git.git(git.root, 'status', '--porcelain')).toBe('');
    expect(git.git(git.root, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');

    const detail = await h.invoke<TurnView>('turns:detail', { id: sechroom.id });
    expect(detail.git).toMatchObject({ branch, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    // The task's turn kept what the app-server streamed: the model's messages, after the turn ended.
    const transcript = await h.invoke<TranscriptView>('turns:transcript', { id: sechroom.id });
    expect(transcript.lines.map((l) => `${l.kind}:${l.text}`)).toContain('text:closeout reply: closeout accepted');
    const list = await h.invoke<ProfileSummary[]>('profiles:list');
    expect(list.map((p) => [p.id, p.connector])).toEqual([
      ['default', 'rost'],
      ['work', 'sechroom'],
    ]);
    // After a restart the operator's Work view reads the Sechroom profile's Work Layer with its sign-in.
    await h.restart();
    const board = await h.invoke<unknown>('work:board');
    expect(JSON.stringify(board)).toContain(task.memoryId);
  });

  it('a Sechroom task waits for a slot of the machine-wide cap while a Rost turn holds it, says why, and runs when it ends', async () => {
    const git = (repo = gitOrigin());
    // A short long-poll: an idle Rost claim holds its slot for the hold's length (as between two Rost profiles).
    emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 2_000 } });
    const minted = emu.sechroom.mintToken();
    h = await startHarness({
      emu,
      settings: { maxSessions: 2, machineMaxTurns: 1 },
      core: {
        runtimeBinaries: { claude: FAKE, codex: FAKE },
        runtimeEnv: { CODEX_STUB_SCENARIO: JSON.stringify({ turn: 'closeout-on-nudge' }) },
        env: { ...process.env, SECHROOM_TOKEN: minted.access_token },
      },
    });
    const pairing = await h.invoke<PairingState>('pairing:start');
    if (pairing.phase !== 'waiting') throw new Error('not waiting');
    h.emu.admin.approvePairing(pairing.userCode);
    await h.waitForEvent('runner:snapshot', (s) => s.profile === 'default' && s.heartbeat.longPoll && s.runtimes?.claude.installed === true);
    // The Rost profile's turn takes the machine's only slot and keeps it.
    const unit = h.emu.admin.enqueueTurnExecution({ brain: 'claude', prompt: 'fake:sleep' });
    await h.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'default' && p.active === 1));

    await h.invoke('profiles:add', { name: 'Work', connector: 'sechroom' });
    await h.invoke('sechroom:configure', {
      profile: 'work',
      baseUrl: h.emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-a', root: git.root, pollIntervalSeconds: 1, codexBin: APP_SERVER_STUB },
      raisePr: false,
    });
    const task = h.emu.sechroom.createTask({ title: 'Waits its turn', objective: 'Runs after the Rost turn.', acceptance: 'Done.' });
    // The Sechroom loop waits for the slot, says why (amber), and claims nothing meanwhile.
    const held = await h.waitForEvent('profiles:changed', (list) =>
      list.some((p) => p.id === 'work' && p.status.state === 'idle' && p.status.held === MACHINE_FULL),
    );
    expect(held.find((p) => p.id === 'work')!.status).toMatchObject({ state: 'idle', held: MACHINE_FULL });
    expect(h.emu.sechroom.listInstances()).toMatchObject([{ instanceKey: 'codex-a', status: 'live' }]);
    expect(h.emu.sechroom.listCompletions({ memory_id: task.memoryId })).toEqual([]);
    expect(h.core.profiles.activeCount).toBe(1);

    // The Rost turn ends: the slot goes to the Sechroom profile, whose task now runs to its completion.
    h.emu.admin.cancelUnit(unit.id);
    const done = await finished(h, (t) => t.plane === 'sechroom' && t.phase === 'succeeded');
    expect(done).toMatchObject({ profile: 'work', verdict: 'pass' });
    expect(h.emu.sechroom.listCompletions({ memory_id: task.memoryId })).toMatchObject([{ verdict: 'pass' }]);
  });

  it('imports the seed’s fleet config as one Sechroom profile per instance (sechroom:fleet-import); a bad one imports nothing', async () => {
    const git = gitOrigin();
    repo = git;
    h = await startHarness({});
    const file = path.join(git.dir, 'fleet.json');
    writeFileSync(file, JSON.stringify({ instances: [] }));
    const workLayer = { baseUrl: h.emu.sechroomUrl, tenant: 'tn_1' };
    expect(await h.core.host.invoke('sechroom:fleet-import', { file, ...workLayer })).toMatchObject({
      ok: false,
      error: { message: FLEET_NEEDS_INSTANCES },
    });
    writeFileSync(
      file,
      JSON.stringify({
        instances: [
          { instanceKey: 'codex-a', root: 'root', lane: 'l1' },
          { instanceKey: 'codex-b', root: git.root, ttl: 5 },
        ],
      }),
    );
    expect(await h.core.host.invoke('sechroom:fleet-import', { file, ...workLayer })).toMatchObject({
      ok: false,
      error: { message: `fleet instance 'codex-b': ${TTL_RANGE}` },
    });
    expect((await h.invoke<ProfileSummary[]>('profiles:list')).map((p) => p.id)).toEqual(['default']);
    writeFileSync(
      file,
      JSON.stringify({
        instances: [
          { instanceKey: 'codex-a', root: 'root', lane: 'l1' },
          { instanceKey: 'codex-b', root: git.root },
        ],
      }),
    );
    const imported = await h.invoke<ProfileSummary[]>('sechroom:fleet-import', { file, ...workLayer });
    expect(imported.map((p) => [p.id, p.connector, p.controlPlaneUrl, p.status.state])).toEqual([
      ['codex-a', 'sechroom', h.emu.sechroomUrl, 'unpaired'],
      ['codex-b', 'sechroom', h.emu.sechroomUrl, 'unpaired'],
    ]);
    const stored = JSON.parse(readFileSync(path.join(h.dataDir, 'profiles', 'codex-a', 'sechroom.json'), 'utf8'));
    expect(stored).toMatchObject({
      baseUrl: h.emu.sechroomUrl,
      tenant: 'tn_1',
      instance: { instanceKey: 'codex-a', laneId: 'l1', root: path.join(git.dir, 'root') },
    });
    // Kept across a restart.
    await h.restart();
    expect((await h.invoke<ProfileSummary[]>('profiles:list')).map((p) => [p.id, p.connector])).toEqual([
      ['default', 'rost'],
      ['codex-a', 'sechroom'],
      ['codex-b', 'sechroom'],
    ]);
  });

  it('signs in by the Work Layer device flow (pairing:start on the profile), keeps the tokens under the profile, and registers', async () => {
    const git = gitOrigin();
    repo = git;
    h = await startHarness({});
    const operator = h.emu.sechroom.mintToken();
    await h.invoke('profiles:add', { name: 'Work', connector: 'sechroom' });
    await h.invoke('sechroom:configure', {
      profile: 'work',
      baseUrl: h.emu.sechroomUrl,
      tenant: operator.tenant,
      account: 'ops',
      instance: { instanceKey: 'codex-a', root: git.root, pollIntervalSeconds: 1 },
    });
    expect((await h.invoke<ProfileSummary[]>('profiles:list')).find((p) => p.id === 'work')!.status).toMatchObject({
      state: 'unpaired',
      reason: expect.stringContaining('Sign in to the Work Layer'),
    });
    const started = await h.invoke<PairingState>('pairing:start', { profile: 'work' });
    if (started.phase !== 'waiting') throw new Error(`not waiting: ${JSON.stringify(started)}`);
    h.emu.admin.decideOAuthDeviceCode(started.userCode, operator.operator_id, 'approve');
    await h.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'work' && p.runnerId !== null && p.status.state === 'idle'));
    expect(h.emu.sechroom.listInstances()).toMatchObject([{ instanceKey: 'codex-a', status: 'live' }]);
    // The tenant is shown by the name the Work Layer's `/me` gives, its id beside it.
    const tenantName = h.emu.admin.listTenants().find((t) => t.id === operator.tenant)!.name;
    await h.waitForEvent('runner:snapshot', (s) => s.profile === 'work' && s.identity?.tenantName === tenantName);
    // The grant is in the secret store (the file store here) under this profile's account, never in its folder.
    const holding = filesUnder(h.dataDir).filter((f) => f.text.includes('work.ops'));
    expect(holding.map((f) => f.file)).toEqual([expect.stringMatching(/secret/)]);
    expect(readFileSync(path.join(h.dataDir, 'profiles', 'work', 'sechroom.json'), 'utf8')).not.toMatch(/token/i);
    // Signing out deregisters the instance and forgets the grant.
    await h.invoke('runner:unpair', { profile: 'work', force: false });
    expect(h.emu.sechroom.listInstances()).toMatchObject([{ status: 'deregistered' }]);
    expect((await h.invoke<ProfileSummary[]>('profiles:list')).find((p) => p.id === 'work')!.status.state).toBe('unpaired');
  });

  it('a rejected SECHROOM_TOKEN is not silent: the profile says so (the window) and readiness answers 503', async () => {
    const git = (repo = gitOrigin());
    const plane = (emu = await startEmulator({}));
    const minted = plane.sechroom.mintToken();
    const harness = (h = await startHarness({ emu: plane, core: { env: { ...process.env, SECHROOM_TOKEN: 'not-a-token' } } }));
    await harness.invoke('profiles:add', { name: 'Work', connector: 'sechroom' });
    const refused = harness.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'work' && p.status.state === 'error'));
    await harness.invoke('sechroom:configure', {
      profile: 'work',
      baseUrl: plane.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-a', root: git.root, codexBin: APP_SERVER_STUB },
      raisePr: false,
    });
    expect((await refused).find((p) => p.id === 'work')!.status).toEqual({ state: 'error', reason: SECHROOM_TOKEN_REJECTED });
    // Stays so once the loop has stopped over it (runOne resolves when its loop has ended).
    expect(await harness.core.profiles.get('work').runOne()).toEqual({ claimed: false, error: `auth expired: ${SECHROOM_TOKEN_REJECTED}` });
    expect(plane.sechroom.listInstances()).toEqual([]);
    expect(harness.core.profiles.get('work').status().state).toBe('error');
    expect(healthz(new URL('http://probe/healthz?ready=1'), () => harness.core.host.status()).code).toBe(503);
  });

  it('keeps a Sechroom profile’s pause and its note across a restart (the instance registered) and claims on resume', async () => {
    const { h, emu } = await sechroomHost({ turn: 'closeout-on-nudge', writeFile: { name: 'CHANGES.md', text: 'resumed\n' } }, {}, (harness) =>
      harness.invoke('runner:pause', { profile: 'work', minutes: null, note: 'lunch' }),
    );
    await h.restart();
    const paused = await h.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'work' && p.runnerId !== null));
    expect(paused.find((p) => p.id === 'work')).toMatchObject({ paused: true, status: { state: 'paused', note: 'lunch', by: 'you' } });
    const task = emu.sechroom.createTask({ title: 'After lunch', objective: 'Resume.' });
    await h.invoke('runner:resume', { profile: 'work' });
    const done = await finished(h, (t) => t.plane === 'sechroom' && t.phase === 'succeeded');
    expect(done).toMatchObject({ profile: 'work', title: 'After lunch', verdict: 'pass' });
    expect(emu.sechroom.listCompletions({ memory_id: task.memoryId })).toHaveLength(1);
  });

  it('holds the offers read by default: a task offered to the waiting instance runs without waiting out its 30 s poll', async () => {
    const { h, emu } = await sechroomHost({ turn: 'closeout-on-nudge', writeFile: { name: 'CHANGES.md', text: 'held\n' } }, { pollIntervalSeconds: 30 });
    await emu.sechroom.waitForEvent('sechroom.offers.held', { timeoutMs: 10_000 });
    const task = emu.sechroom.createTask({ title: 'Picked up at once', objective: 'Run.' });
    const done = await h.waitForEvent('turns:update', (u) => u.finished.some((t) => t.plane === 'sechroom' && t.phase === 'succeeded'), 10_000);
    expect(done.finished.find((t) => t.plane === 'sechroom')).toMatchObject({ profile: 'work', title: 'Picked up at once', verdict: 'pass' });
    expect(emu.sechroom.listCompletions({ memory_id: task.memoryId })).toHaveLength(1);
  });

  it('turns:cancel on a running Sechroom task interrupts its turn: no completion, the row says so, no branch pushed', async () => {
    const { h, emu, git } = await sechroomHost({ turn: 'hang' }, {});
    const task = emu.sechroom.createTask({ title: 'Hangs', objective: 'Never ends.' });
    const running = await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.plane === 'sechroom' && t.phase === 'running'), 15_000);
    const id = running.active.find((t) => t.plane === 'sechroom')!.id;
    await h.invoke('turns:cancel', { id });
    const ended = await finished(h, (t) => t.id === id);
    // Canceled, as a Rost turn the operator cancels is: it did not fail.
    expect(ended).toMatchObject({
      profile: 'work',
      phase: 'canceled',
      leaseState: 'left_to_expire',
      reason: expect.stringMatching(/^canceled by the operator — /),
    });
    expect(emu.sechroom.listCompletions({ memory_id: task.memoryId })).toEqual([]);
    expect(git.git(git.origin, 'for-each-ref', 'refs/heads/task/')).toBe('');
  });

  it('quitting now interrupts a running Sechroom task at once: no completion, the instance deregistered, the lease left to expire', async () => {
    // The instance would give a draining turn 10 minutes; quitting now does not wait for it.
    const { h, emu } = await sechroomHost({ turn: 'hang' }, { drainTimeoutSeconds: 600 });
    const task = emu.sechroom.createTask({ title: 'Hangs', objective: 'Never ends.' });
    await h.waitForEvent('turns:update', (u) => u.active.some((t) => t.plane === 'sechroom' && t.phase === 'running'), 15_000);
    await h.core.quit('now');
    expect(emu.sechroom.listCompletions({ memory_id: task.memoryId })).toEqual([]);
    expect(emu.sechroom.listInstances()).toMatchObject([{ status: 'deregistered' }]);
    expect(emu.sechroom.listLeases({ memory_id: task.memoryId })).toMatchObject([{ status: 'active' }]);
    // Cut short by the stop, not failed: its row, live and in the history, says canceled.
    const ended = await finished(h, (t) => t.plane === 'sechroom');
    expect(ended).toMatchObject({ phase: 'canceled', leaseState: 'left_to_expire', reason: expect.stringMatching(/^the runner was stopped — /) });
    await h.restart();
    const page = await h.invoke<TurnsPage>('turns:list', {});
    expect(page.history.find((row) => row.id === ended.id)).toMatchObject({ phase: 'canceled' });
  });

  it('the host sweeps at start the task worktrees a crash left behind (worktree and branch gone, the checkout untouched)', async () => {
    const git = gitOrigin();
    repo = git;
    h = await startHarness({});
    // What a host that died mid-task leaves: a worktree on its task branch, and its note.
    const crashed = new GitDelivery({ stateDir: path.join(h.dataDir, 'delivery'), log: h.core.log });
    const tree = await crashed.start(git.root, 'mem_crashed');
    writeFileSync(path.join(tree.path, 'half-done.txt'), 'half\n');
    expect(git.git(git.root, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/task/').trim()).toBe('task/mem-crashed');
    await h.restart();
    expect(existsSync(tree.path)).toBe(false);
    expect(git.git(git.root, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/task/').trim()).toBe('');
    expect(git.git(git.root, 'status', '--porcelain')).toBe('');
  });
});
