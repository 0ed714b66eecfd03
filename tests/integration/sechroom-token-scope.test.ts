import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProfileSummary } from '../../shared/profiles';
import type { SechroomSettingsView } from '../../shared/sechroom-profile-contract';
import type { WorkBoard } from '../../shared/work-layer';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHarness, type Harness } from './core-harness';

// SECHROOM_TOKEN's scope and the Work view's profile, on the real core against the
// emulator's Work Layer: two Sechroom profiles never both take the host's token silently.

let h: Harness | null = null;
let emu: RunningEmulator | null = null;
let root: string | null = null;
afterEach(async () => {
  await h?.close();
  await emu?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  h = emu = root = null;
});

async function twoSechroomProfiles(env: Record<string, string>) {
  emu = await startEmulator({});
  root = mkdtempSync(path.join(os.tmpdir(), 'rt-scope-root-'));
  const minted = emu.sechroom.mintToken();
  const brief = emu.sechroom.createBrief({ title: 'Quarterly invoice export' });
  h = await startHarness({ emu, core: { env: { ...process.env, SECHROOM_TOKEN: minted.access_token, ...env } } });
  for (const name of ['Alpha', 'Beta']) await h.invoke<ProfileSummary>('profiles:add', { name, connector: 'sechroom' });
  for (const name of ['Alpha', 'Beta']) {
    await h.invoke<ProfileSummary>('sechroom:configure', {
      profile: name.toLowerCase(),
      baseUrl: emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: `codex-${name.toLowerCase()}`, root },
      deliver: false,
    });
  }
  return { minted, brief, harness: h, emulator: emu };
}

describe('SECHROOM_TOKEN with several Sechroom profiles', () => {
  it('without SECHROOM_TOKEN_PROFILE signs in neither, registers nothing, and each says why', async () => {
    const { minted, harness, emulator } = await twoSechroomProfiles({});
    for (const profile of ['alpha', 'beta']) {
      const view = await harness.invoke<SechroomSettingsView>('sechroom:get', { profile });
      expect(view.credential).toEqual({
        source: 'sign-in',
        note: 'SECHROOM_TOKEN is not used here: this host has 2 Sechroom profiles; set SECHROOM_TOKEN_PROFILE to the one it is for.',
      });
      expect(view.signedIn).toBe(false);
      expect(JSON.stringify(view)).not.toContain(minted.access_token);
      const board = await harness.invoke<WorkBoard>('work:board', { profile });
      expect(board).toEqual({ state: 'not_configured', message: `Sign this profile in to the Work Layer at ${emulator.sechroomUrl} to see its work here.` });
    }
    expect(emulator.sechroom.listInstances()).toEqual([]);
  });

  it('the only Sechroom profile takes it; once a second is added, it says the token goes at its next start', async () => {
    emu = await startEmulator({});
    root = mkdtempSync(path.join(os.tmpdir(), 'rt-scope-root-'));
    const minted = emu.sechroom.mintToken();
    h = await startHarness({ emu, core: { env: { ...process.env, SECHROOM_TOKEN: minted.access_token } } });
    await h.invoke<ProfileSummary>('profiles:add', { name: 'Alpha', connector: 'sechroom' });
    await h.invoke('sechroom:configure', {
      profile: 'alpha',
      baseUrl: emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-alpha', root },
      deliver: false,
    });
    expect(await h.invoke<SechroomSettingsView>('sechroom:get', { profile: 'alpha' })).toMatchObject({
      credential: { source: 'env', note: 'Token from SECHROOM_TOKEN (the only Sechroom profile here).' },
      signedIn: true,
    });
    await h.invoke<ProfileSummary>('profiles:add', { name: 'Beta', connector: 'sechroom' });
    const alpha = await h.invoke<SechroomSettingsView>('sechroom:get', { profile: 'alpha' });
    expect(alpha.credential.source).toBe('env');
    expect(alpha.credential.note).toMatch(
      /^Token from SECHROOM_TOKEN since this profile's executor started; at its next start it is not used \(.*2 Sechroom profiles/,
    );
    // Its next start (new settings) signs in on its own: no token, nothing registered anew.
    await h.invoke('sechroom:configure', {
      profile: 'alpha',
      baseUrl: emu.sechroomUrl,
      tenant: minted.tenant,
      instance: { instanceKey: 'codex-alpha', root, ttlSeconds: 300 },
      deliver: false,
    });
    expect(await h.invoke<SechroomSettingsView>('sechroom:get', { profile: 'alpha' })).toMatchObject({ credential: { source: 'sign-in' }, signedIn: false });
  });

  it('SECHROOM_TOKEN_PROFILE names the one it signs in: it registers and its Work view reads its Work Layer; the Rost profile has none', async () => {
    const { minted, brief, harness, emulator } = await twoSechroomProfiles({ SECHROOM_TOKEN_PROFILE: 'beta' });
    await harness.waitForEvent('profiles:changed', (list) => list.some((p) => p.id === 'beta' && p.runnerId !== null));
    expect(emulator.sechroom.listInstances().map((i) => i.instanceKey)).toEqual(['codex-beta']);

    const beta = await harness.invoke<SechroomSettingsView>('sechroom:get', { profile: 'beta' });
    expect(beta).toMatchObject({
      credential: { source: 'env' },
      signedIn: true,
      config: { baseUrl: emulator.sechroomUrl, instance: { instanceKey: 'codex-beta' } },
    });
    expect(JSON.stringify(beta)).not.toContain(minted.access_token);
    const alpha = await harness.invoke<SechroomSettingsView>('sechroom:get', { profile: 'alpha' });
    expect(alpha.credential).toEqual({ source: 'sign-in', note: 'SECHROOM_TOKEN is not used here: SECHROOM_TOKEN_PROFILE names “beta”.' });

    const board = await harness.invoke<WorkBoard>('work:board', { profile: 'beta' });
    expect(board.state === 'ready' && board.briefs.map((b) => b.id)).toEqual([brief.id]);
    expect(await harness.invoke<WorkBoard>('work:board', { profile: 'alpha' })).toMatchObject({ state: 'not_configured' });
    expect(await harness.invoke<WorkBoard>('work:board', { profile: 'default' })).toMatchObject({
      state: 'not_configured',
      message: expect.stringMatching(/^The Work view belongs to Sechroom profiles/),
    });
    // A brief verb goes to the profile's own Work Layer too.
    const paused = await harness.invoke<{ changed: boolean }>('work:brief-action', { profile: 'beta', briefId: brief.id, action: 'park' });
    expect(paused.changed).toBe(true);
    expect(emulator.sechroom.listBriefs().find((b) => b.id === brief.id)?.status).toBe('parked');
  });
});
