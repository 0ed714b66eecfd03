import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Core } from '../../../main/core/bootstrap';
import { seedStateFilePath } from '../../../main/core/planes/rost/import';
import { inspectStateFile, mentionDefaultSeedFile } from '../../../main/headless/seed-state-file';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

const coreWith = (identity: unknown, controlPlaneUrl = 'https://rost.example.com') =>
  ({ runner: { identity }, settings: { get: () => ({ controlPlaneUrl }) } }) as unknown as Core;

describe('seed state files next to the headless host', () => {
  it("points at rost runner serve's default file for this control plane when started without --state-file", async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-seedfile-'));
    let said = '';
    const out = { write: (t: string) => (said += t) };
    await mentionDefaultSeedFile(coreWith(null), out, dir);
    expect(said).toBe('');
    const file = seedStateFilePath('https://rost.example.com', dir);
    writeFileSync(file, '{}');
    await mentionDefaultSeedFile(coreWith(null), out, dir);
    expect(said).toBe(`Found a rost runner serve state file for this control plane: ${file}. To keep that runner, start with --state-file ${file}.\n`);
    said = '';
    await mentionDefaultSeedFile(coreWith({ runnerId: 'r' }), out, dir);
    expect(said).toBe('');
  });

  it('tells a newer file of another runner from an older one and from our own, and never returns the secret', async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'runner-tray-seedfile-'));
    const file = path.join(dir, 'state.json');
    const pairedAt = new Date(Date.now() - 60_000).toISOString();
    writeFileSync(file, JSON.stringify({ runner_id: 'other', runner_secret: 'rsec_do_not_show_0000' }));
    const newer = await inspectStateFile(file, { runnerId: 'mine', pairedAt });
    expect(newer).toEqual({ kind: 'other', runnerId: 'other', newer: true, hasSecret: true });
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(file, old, old);
    expect(await inspectStateFile(file, { runnerId: 'mine', pairedAt })).toMatchObject({ kind: 'other', newer: false });
    writeFileSync(file, JSON.stringify({ runner_id: 'mine' }));
    expect(await inspectStateFile(file, { runnerId: 'mine', pairedAt })).toEqual({ kind: 'same' });
    writeFileSync(file, 'not json');
    expect(await inspectStateFile(file, { runnerId: 'mine', pairedAt })).toEqual({ kind: 'unreadable', reason: 'it is not valid JSON' });
    expect(await inspectStateFile(path.join(dir, 'none.json'), { runnerId: 'mine', pairedAt })).toEqual({ kind: 'missing' });
  });
});
