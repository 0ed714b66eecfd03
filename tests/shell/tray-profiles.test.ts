import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProfileSummary } from '../../shared/profiles';
import type { RunnerStatus, TrayIconKind } from '../../shared/status';
import { trayIconPath } from '../../main/electron/app-paths';
import { TrayController } from '../../main/electron/tray';
import { createFakeElectron, type FakeElectron } from './fake-electron';
import { snapshotOf, TrayTestHost } from './tray-host';

const ICONS = '/app/dist/electron/icons';
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

const profile = (id: string, name: string, status: RunnerStatus, extra: Partial<ProfileSummary> = {}): ProfileSummary => ({
  id,
  name,
  connector: 'rost',
  controlPlaneUrl: `https://${id}.example`,
  status,
  runnerId: status.state === 'unpaired' || status.state === 'revoked' ? null : `runner-${id}`,
  paused: status.state === 'paused',
  active: status.state === 'working' ? status.active : 0,
  ...extra,
});
const idle: RunnerStatus = { state: 'idle', reason: '' };
const paused: RunnerStatus = { state: 'paused', reason: '', until: null };
const working: RunnerStatus = { state: 'working', reason: '', active: 2, limit: 2 };
const revoked: RunnerStatus = { state: 'revoked', reason: '' };
const error: RunnerStatus = { state: 'error', reason: '' };

let fake: FakeElectron;
let host: TrayTestHost;

async function startTray(): Promise<TrayController> {
  const tray = new TrayController({
    electron: fake.api,
    host,
    iconPath: (kind: TrayIconKind) => trayIconPath(ICONS, kind, 'linux'),
    platform: 'linux',
    onOpen: vi.fn(),
    onQuit: vi.fn(),
  });
  tray.start();
  await settle();
  return tray;
}
const tray = () => fake.trays[0]!;

beforeEach(() => {
  fake = createFakeElectron();
  host = new TrayTestHost();
  host.snapshot = snapshotOf(idle, {
    identity: { runnerId: 'runner-default', tenantId: 't', name: 'n', controlPlane: 'https://default.example', pairedAt: '' },
  });
});

describe('the tray with several profiles', () => {
  it('lists each profile with its status and its own pause or resume, then Pause all and Resume all', async () => {
    host.profiles = [profile('default', 'Default', idle), profile('lab', 'Lab', paused)];
    await startTray();
    expect(tray().menuLabels()).toEqual([
      '2 profiles · Paused',
      'No turns running',
      '---',
      'Default: Idle',
      'Lab: Paused',
      'Pause all',
      'Resume all',
      '---',
      'Open dashboard',
      'Profiles and pairing…',
      '---',
      'Quit Runner Tray',
    ]);
    expect(tray().image).toBe(path.join(ICONS, 'tray-paused.png'));
    const submenu = (label: string) =>
      tray()
        .menuItem(label)!
        .submenu!.map((i) => i.label);
    expect(submenu('Default: Idle')).toEqual(['Pause', 'Pause for 30 minutes', 'Pause for 1 hour', expect.stringMatching(/^Pause until (tomorrow )?9:00$/)]);
    expect(submenu('Lab: Paused')).toEqual(['Resume']);
    tray().clickMenuItem('Lab: Paused > Resume');
    tray().clickMenuItem('Default: Idle > Pause for 1 hour');
    tray().clickMenuItem('Pause all');
    await settle();
    expect(host.invoked.filter((i) => i.name.startsWith('runner:'))).toEqual([
      { name: 'runner:snapshot', input: {} },
      { name: 'runner:resume', input: { profile: 'lab' } },
      { name: 'runner:pause', input: { minutes: 60, profile: 'default' } },
      { name: 'runner:pause-all', input: { minutes: null } },
    ]);
  });

  it('the icon is the worst state that needs attention: error > revoked > working > paused > idle', async () => {
    host.profiles = [profile('default', 'Default', idle), profile('lab', 'Lab', idle)];
    await startTray();
    expect(tray().image).toBe(path.join(ICONS, 'tray-idle.png'));
    const steps: Array<[RunnerStatus, RunnerStatus, string]> = [
      [paused, idle, 'tray-paused.png'],
      [paused, working, 'tray-working.png'],
      [revoked, working, 'tray-unpaired.png'],
      [revoked, error, 'tray-error.png'],
    ];
    for (const [a, b, icon] of steps) {
      host.emit([{ event: 'profiles:changed', payload: [profile('default', 'Default', a), profile('lab', 'Lab', b)] }]);
      expect(tray().image).toBe(path.join(ICONS, icon));
    }
    // Two turns of the lab profile run: the quit items count every profile's.
    host.emit([{ event: 'profiles:changed', payload: [profile('default', 'Default', idle), profile('lab', 'Lab', working)] }]);
    expect(tray().menuLabels()).toContain('Quit after 2 running turns finish');
  });

  it('another profile’s status events do not change what the tray says of the default one', async () => {
    host.profiles = [profile('default', 'Default', idle)];
    await startTray();
    expect(tray().tooltip).toBe('Idle');
    host.emit([{ event: 'runner:status', payload: { ...error, profile: 'lab' } }]);
    expect(tray().tooltip).toBe('Idle');
    // One profile: the menu is the single-runner one.
    expect(tray().menuLabels()).toContain('Pause');
    expect(tray().menuLabels()).not.toContain('Pause all');
  });

  it('notifies when a profile other than the default is revoked', async () => {
    host.profiles = [profile('default', 'Default', idle), profile('lab', 'Lab', idle)];
    await startTray();
    host.emit([{ event: 'profiles:changed', payload: [profile('default', 'Default', idle), profile('lab', 'Lab', revoked)] }]);
    expect(fake.notifications.map((n) => n.options.title)).toEqual(['Runner revoked']);
  });
});
