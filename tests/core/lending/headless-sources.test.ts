import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { headlessPowerSource, loginctlIdleSource, parseLoginctl, parsePmset, readSysPower } from '../../../main/core/lending/headless-sources';
import type { CommandRunner } from '../../../main/core/exec/process-runner';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function runner(stdout: string, code = 0): CommandRunner & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    run: (command, args) => {
      calls.push([command, ...args]);
      return Promise.resolve({ code, stdout, stderr: '' });
    },
    which: () => Promise.resolve(null),
  };
}

describe("logind's idle hint", () => {
  it('reads the seconds since the session went idle, or 0 while in use', () => {
    const since = (NOW - 300_000) * 1000;
    expect(parseLoginctl(`IdleHint=yes\nIdleSinceHint=${since}\n`, NOW)).toBe(300);
    expect(parseLoginctl(`IdleHint=no\nIdleSinceHint=${since}\n`, NOW)).toBe(0);
  });

  it('is not available when the answer does not fit', () => {
    expect(parseLoginctl('', NOW)).toBeNull();
    expect(parseLoginctl('IdleHint=maybe\nIdleSinceHint=1\n', NOW)).toBeNull();
    expect(parseLoginctl('IdleHint=yes\nIdleSinceHint=0\n', NOW)).toBeNull();
  });

  it('asks loginctl for the session the host runs in, and says not available without one', async () => {
    const r = runner(`IdleHint=no\nIdleSinceHint=0\n`);
    expect(await loginctlIdleSource(r, { XDG_SESSION_ID: 'c2' }, () => NOW, 'linux').idleSeconds()).toBe(0);
    expect(r.calls).toEqual([['loginctl', 'show-session', 'c2', '-p', 'IdleHint', '-p', 'IdleSinceHint']]);
    expect(await loginctlIdleSource(r, {}, () => NOW, 'linux').idleSeconds()).toBeNull();
    expect(await loginctlIdleSource(runner('', 1), { XDG_SESSION_ID: 'c2' }, () => NOW, 'linux').idleSeconds()).toBeNull();
    expect(await loginctlIdleSource(r, { XDG_SESSION_ID: 'c2' }, () => NOW, 'darwin').idleSeconds()).toBeNull();
  });
});

describe('the power supply under /sys/class/power_supply', () => {
  let root: string | null = null;
  afterEach(async () => {
    if (root) await rm(root, { recursive: true, force: true });
    root = null;
  });

  async function supplies(entries: Record<string, Record<string, string>>): Promise<string> {
    root = await mkdtemp(path.join(os.tmpdir(), 'power-supply-'));
    for (const [name, files] of Object.entries(entries)) {
      await mkdir(path.join(root, name));
      for (const [file, text] of Object.entries(files)) await writeFile(path.join(root, name, file), `${text}\n`);
    }
    return root;
  }

  it('is on battery when no mains adapter is online, with the charge', async () => {
    const dir = await supplies({ AC: { type: 'Mains', online: '0' }, BAT0: { type: 'Battery', capacity: '34', status: 'Discharging' } });
    expect(await readSysPower(dir)).toEqual({ onBattery: true, percent: 34 });
  });

  it('is on mains when the adapter is online', async () => {
    const dir = await supplies({ AC: { type: 'Mains', online: '1' }, BAT0: { type: 'Battery', capacity: '80', status: 'Charging' } });
    expect(await headlessPowerSource(runner(''), 'linux', dir).read()).toEqual({ onBattery: false, percent: 80 });
  });

  it('reads the battery status without an adapter folder', async () => {
    const dir = await supplies({ BAT1: { type: 'Battery', capacity: '50', status: 'Discharging' } });
    expect(await readSysPower(dir)).toEqual({ onBattery: true, percent: 50 });
  });

  it('says no battery for a desktop (a mains adapter or nothing), or a folder that is not there', async () => {
    expect(await readSysPower(await supplies({ AC: { type: 'Mains', online: '1' } }))).toBeNull();
    expect(await readSysPower(path.join(os.tmpdir(), 'no-such-power-supply'))).toBeNull();
  });
});

describe('pmset -g batt', () => {
  it('reads the source and the charge', () => {
    const battery = "Now drawing from 'Battery Power'\n -InternalBattery-0 (id=4653155)\t34%; discharging; 3:12 remaining present: true\n";
    const mains = "Now drawing from 'AC Power'\n -InternalBattery-0 (id=4653155)\t100%; charged; 0:00 remaining present: true\n";
    expect(parsePmset(battery)).toEqual({ onBattery: true, percent: 34 });
    expect(parsePmset(mains)).toEqual({ onBattery: false, percent: 100 });
  });

  it('says no battery for a Mac without one, and nothing for what does not fit', async () => {
    expect(parsePmset("Now drawing from 'AC Power'\n")).toBeNull();
    expect(parsePmset('garbage')).toBeNull();
    const r = runner("Now drawing from 'Battery Power'\n -InternalBattery-0 (id=1)\t9%; discharging; present: true\n");
    expect(await headlessPowerSource(r, 'darwin').read()).toEqual({ onBattery: true, percent: 9 });
    expect(r.calls).toEqual([['pmset', '-g', 'batt']]);
    expect(await headlessPowerSource(r, 'win32').read()).toBeNull();
  });
});
