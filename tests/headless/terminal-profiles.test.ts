import { fileURLToPath } from 'node:url';
import { afterEach, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import type { ProfileSummary } from '../../shared/profiles';
import { watchModeLine } from '../../main/headless/seed-lines';
import { TerminalReporter } from '../../main/headless/terminal-reporter';
import { handedRefreshRefusedMessage } from '../../main/core/planes/sechroom/sechroom-auth';
import { startHarness, type Harness } from '../integration/core-harness';
import { gitOrigin, type GitOrigin } from '../integration/git-origin';
import { checkSechroomConfig } from '../../main/core/planes/sechroom/sechroom-config';

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

// The terminal spoke only of the profile the flags named: a Sechroom instance beside it
// (the demo's) had no lines at all, and its refused bearer was in the JSON log only.
it('every profile gets its status lines, each named while there are several; a refused Sechroom bearer is said there', async () => {
  repo = gitOrigin();
  emu = await startEmulator({});
  const minted = emu.sechroom.mintToken();
  h = await startHarness({ emu, core: { env: { ...process.env, SECHROOM_TOKEN: 'oat_refused-by-the-work-layer' } } });
  const lines: string[] = [];
  const reporter = new TerminalReporter({ write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) }, null, Date.now, {
    list: h.core.profiles.list(),
    main: 'default',
  });
  h.core.host.subscribe((batch) => reporter.onEvents(batch));
  await h.invoke<ProfileSummary>('profiles:add', { name: 'Work', connector: 'sechroom' });
  await h.invoke('sechroom:configure', {
    profile: 'work',
    baseUrl: emu.sechroomUrl,
    tenant: minted.tenant,
    instance: { instanceKey: 'codex-a', root: repo.root, pollIntervalSeconds: 1 },
    raisePr: false,
  });
  const refused = await h.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'work' && p.status.state === 'error'), 30_000);
  // The window's profile list says it too (not "stopped", which the executor's shutdown said after the refusal).
  expect(refused.find((p) => p.id === 'work')!.status.reason).toMatch(/SECHROOM_TOKEN was rejected \(401\)/);
  await h.invoke('pairing:start');
  await h.waitForEvent('runner:status', (s) => (s.profile ?? 'default') === 'default' && s.state === 'pairing');
  expect(lines).toContainEqual(expect.stringMatching(/^\[Work\] Status: Error — SECHROOM_TOKEN was rejected \(401\)/));
  expect(lines).toContainEqual(expect.stringMatching(/^\[Default\] Status: Pairing… — /));
  // Every status line names its profile, but the first one, which may come while the host had one profile only.
  const unnamed = lines.filter((l) => l.includes('Status: ') && !/^\[[^\]]+\] Status: /.test(l));
  expect(unnamed.filter((l) => l !== 'Status: Not paired — This machine is not paired with a control plane yet.')).toEqual([]);
}, 60_000);

// A refused refresh was as silent as a refused bearer: the window and the terminal both say it.
it('a Sechroom bearer whose SECHROOM_REFRESH_TOKEN is refused too: the window and the terminal say so', async () => {
  repo = gitOrigin();
  emu = await startEmulator({});
  const minted = emu.sechroom.mintToken();
  const env = { ...process.env, SECHROOM_TOKEN: 'oat_refused-by-the-work-layer', SECHROOM_REFRESH_TOKEN: 'ort_refused-too' };
  h = await startHarness({ emu, core: { env } });
  const lines: string[] = [];
  const reporter = new TerminalReporter({ write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) }, null, Date.now, {
    list: h.core.profiles.list(),
    main: 'default',
  });
  h.core.host.subscribe((batch) => reporter.onEvents(batch));
  await h.invoke<ProfileSummary>('profiles:add', { name: 'Work', connector: 'sechroom' });
  await h.invoke('sechroom:configure', {
    profile: 'work',
    baseUrl: emu.sechroomUrl,
    tenant: minted.tenant,
    instance: { instanceKey: 'codex-a', root: repo.root, pollIntervalSeconds: 1 },
    raisePr: false,
  });
  const refused = await h.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'work' && p.status.state === 'error'), 30_000);
  expect(refused.find((p) => p.id === 'work')!.status.reason).toBe(handedRefreshRefusedMessage(400));
  await vi.waitFor(() => expect(lines).toContain(`[Work] Status: Error — ${handedRefreshRefusedMessage(400)}`));
  expect(lines.join('\n')).not.toContain('ort_refused-too');
}, 60_000);

// The start line said "nothing is claimed" and stood while turns ran after a runtime became ready.
it('the Mode line is printed again when it changes', async () => {
  h = await startHarness({ core: { runtimeBinaries: { claude: FAKE, codex: FAKE } } });
  await h.core.capabilities.get();
  await h.waitForEvent('runner:snapshot', (s) => s.runtimes?.claude.installed === true);
  const lines: string[] = [];
  const off = watchModeLine(h.core, {}, { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) });
  expect(lines).toEqual([expect.stringMatching(/^Mode: runs work on this machine \(.*\) with claude or codex\.$/)]);
  await h.invoke('settings:update', { profile: 'default', runWork: false });
  await vi.waitFor(() => expect(lines.at(-1)).toMatch(/^Mode: heartbeat only — nothing is claimed/));
  await h.invoke('settings:update', { profile: 'default', runWork: true });
  await vi.waitFor(() => expect(lines.at(-1)).toMatch(/with claude or codex\.$/));
  expect(lines).toHaveLength(3);
  off();
}, 30_000);

// At start the host sent the combined status of all its profiles labelled `default`: the
// demo's terminal and window showed "[Default] Status: Idle — Sechroom instance … stopped."
it('at start each profile’s status line is its own: the host’s combined status is not sent as the Rost default’s', async () => {
  repo = gitOrigin();
  emu = await startEmulator({});
  const minted = emu.sechroom.mintToken();
  const checked = checkSechroomConfig({
    baseUrl: emu.sechroomUrl,
    tenant: minted.tenant,
    raisePr: false,
    instance: { instanceKey: 'lab-codex', root: repo.root },
  });
  if (!checked.ok) throw new Error(checked.message);
  h = await startHarness({ emu, core: { env: { ...process.env, SECHROOM_TOKEN: minted.access_token }, sechroomProfiles: { 'lab-codex': checked.config } } });
  const lines: string[] = [];
  const reporter = new TerminalReporter({ write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) }, null, Date.now, {
    list: h.core.profiles.list(),
    main: 'default',
  });
  await h.waitForEvent('runner:status', (s) => s.profile === 'lab-codex');
  await h.waitForEvent('runner:status', (s) => (s.profile ?? 'default') === 'default');
  reporter.onEvents(h.events);
  const statuses = h.events.flatMap((e) => (e.event === 'runner:status' ? [e.payload] : []));
  // The Rost default never said anything of the Sechroom instance, nor was any other status sent as its.
  expect(statuses.filter((s) => (s.profile ?? 'default') === 'default').map((s) => s.reason)).not.toContainEqual(expect.stringMatching(/Sechroom/));
  expect(statuses.filter((s) => (s.profile ?? 'default') === 'default').at(-1)).toMatchObject(h.core.profiles.get('default').status());
  expect(lines.filter((l) => l.startsWith('[Default] '))).not.toContainEqual(expect.stringMatching(/Sechroom/));
  expect(lines).toContainEqual(expect.stringMatching(/^\[Default\] Status: Not paired — /));
  expect(lines).toContainEqual(expect.stringMatching(/^\[lab-codex\] Status: /));
}, 60_000);
