import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';
import { startHeadlessHost, type RunningHost } from '../e2e/headless-host';

let emu: RunningEmulator | null = null;
let host: RunningHost | null = null;
let dataDir = '';
afterEach(async () => {
  await host?.stop();
  await emu?.close();
  host = emu = null;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

// The headless host started pairing for the profile the flags name only: a second Rost
// profile from --profiles printed no code, and nobody is at a window to start it.
it('every unpaired Rost profile of a headless host prints its own code and address, named by its profile', async () => {
  emu = await startEmulator({ config: { pairingIntervalSec: 1 } });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'rt-profiles-pairing-'));
  const profiles = path.join(dataDir, 'lab-profiles.json');
  writeFileSync(profiles, JSON.stringify({ profiles: [{ id: 'lab', name: 'Lab', settings: { controlPlaneUrl: emu.url } }] }));
  host = await startHeadlessHost(['--control-plane', emu.url, '--allow-file-secret-store', '--profiles', profiles], {}, { dataDir });
  const lines = host.output;
  const codes = await vi.waitFor(
    () => {
      const named = (name: string) => {
        const at = lines.findIndex((l) => l === `  Pair this machine (profile ${name}): open ${emu!.url}/device`);
        const code = at < 0 ? undefined : /^ {2}and enter the code {3}([A-Z]{4}-[A-Z]{4})$/.exec(lines[at + 1] ?? '')?.[1];
        if (!code) throw new Error(`no pairing code for ${name} yet:\n${lines.join('\n')}`);
        return code;
      };
      return { main: named('Default'), lab: named('Lab') };
    },
    { timeout: 30_000, interval: 50 },
  );
  expect(codes.lab).not.toBe(codes.main);
  emu.admin.approvePairing(codes.lab);
  await vi.waitFor(() => expect(lines).toContainEqual(expect.stringMatching(/^\[Lab\] Paired as /)), { timeout: 30_000, interval: 50 });
  expect(lines).not.toContainEqual(expect.stringMatching(/Cannot pair yet/));
}, 60_000);
