import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { statusLine, trayIconFor } from '../../shared/status';
import type { ProfileSummary } from '../../shared/profiles';
import { startHarness, type Harness } from './core-harness';
import { gitOrigin, type GitOrigin } from './git-origin';

const SIGNED_OUT = fileURLToPath(new URL('../fixtures/signed-out-runtime.mjs', import.meta.url));

let h: Harness | null = null;
let emu: RunningEmulator | null = null;
let repo: GitOrigin | null = null;
let home: string | null = null;
afterEach(async () => {
  await h?.close();
  await emu?.close();
  repo?.cleanup();
  if (home) rmSync(home, { recursive: true, force: true });
  h = emu = repo = home = null;
});

// A Rost profile claims nothing while no runtime is ready; a Sechroom profile leased task
// after task to a codex that was not signed in, and each failed.
it('a Sechroom profile claims nothing while the detected codex is not signed in, and says why in amber', async () => {
  repo = gitOrigin();
  emu = await startEmulator({});
  home = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-home-'));
  const minted = emu.sechroom.mintToken();
  const { CODEX_BIN: _named, ...env } = process.env;
  h = await startHarness({
    emu,
    core: { runtimeBinaries: { claude: SIGNED_OUT, codex: SIGNED_OUT }, env: { ...env, HOME: home, SECHROOM_TOKEN: minted.access_token } },
  });
  await h.invoke('profiles:add', { name: 'Work', connector: 'sechroom' });
  const task = emu.sechroom.createTask({ title: 'Add CSV export', objective: 'Export invoices as CSV.', acceptance: 'A CSV downloads.' });
  await h.invoke('sechroom:configure', {
    profile: 'work',
    baseUrl: emu.sechroomUrl,
    tenant: minted.tenant,
    instance: { instanceKey: 'codex-a', root: repo.root, pollIntervalSeconds: 1 },
    raisePr: false,
  });
  const held = (list: ProfileSummary[]) => list.find((p) => p.id === 'work' && p.status.state === 'idle' && p.status.held);
  const work = held(await h.waitForEvent('profiles:changed', (list) => held(list) !== undefined, 30_000))!;
  expect(work.status).toMatchObject({ state: 'idle', held: expect.stringContaining('Codex: installed, not signed in') });
  expect(work.status.reason).toContain('Not claiming: Codex: installed, not signed in — run `codex login`');
  expect(statusLine(work.status)).toBe('Idle · not claiming');
  expect(trayIconFor(work.status)).toBe('paused'); // the amber look, not the green one
  // The executor is registered and polls, yet the task was never leased.
  await emu.sechroom.waitForEvent('sechroom.instance.registered', { timeoutMs: 10_000, since: 0 });
  expect(emu.sechroom.listLeases({ memory_id: task.memoryId })).toEqual([]);
}, 60_000);
