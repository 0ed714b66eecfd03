import path from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunnerStatus, TrayIconKind } from '../../shared/status';
import { trayIconPath } from '../../main/electron/app-paths';
import { TrayController } from '../../main/electron/tray';
import { createFakeElectron, type FakeElectron } from './fake-electron';
import { createTestCore, type TestCore } from './test-core';

const ICONS = '/app/dist/electron/icons';
const idle: RunnerStatus = { state: 'idle', reason: 'Waiting for work.' };
const working = (active: number): RunnerStatus => ({ state: 'working', reason: 'Running turns.', active, limit: 4 });

let fake: FakeElectron;
let testCore: TestCore;
let onOpen: ReturnType<typeof vi.fn<() => void>>;
let onQuit: ReturnType<typeof vi.fn<() => void>>;

function startTray(platform = 'linux'): TrayController {
  const tray = new TrayController({
    electron: fake.api,
    host: testCore.host,
    iconPath: (kind: TrayIconKind) => trayIconPath(ICONS, kind, platform),
    platform,
    onOpen,
    onQuit,
  });
  tray.start();
  return tray;
}

beforeEach(() => {
  fake = createFakeElectron();
  testCore = createTestCore();
  onOpen = vi.fn<() => void>();
  onQuit = vi.fn<() => void>();
});

describe('the tray', () => {
  it('starts with the current status: icon, tooltip and a menu with status, Open and Quit', () => {
    startTray();
    const [tray] = fake.trays;
    expect(tray?.image).toBe(path.join(ICONS, 'tray-unpaired.png'));
    expect(tray?.tooltip).toBe('Not paired');
    expect(tray?.menuLabels()).toEqual(['Not paired', '---', 'Open Runner Tray', '---', 'Quit Runner Tray']);
    expect(fake.menus[0]?.[0]).toMatchObject({ enabled: false });
  });

  it('follows runner:status events: icon per trayIconFor, tooltip and menu per statusLine', () => {
    startTray();
    const tray = fake.trays[0]!;
    testCore.setStatus(working(2));
    expect(tray.image).toBe(path.join(ICONS, 'tray-working.png'));
    expect(tray.tooltip).toBe('Working 2 of 4');
    expect(tray.menuLabels()[0]).toBe('Working 2 of 4');
    testCore.setStatus({ state: 'paused', reason: 'Paused by you.', until: null });
    expect(tray.image).toBe(path.join(ICONS, 'tray-paused.png'));
    testCore.setStatus({ state: 'offline', reason: 'No network.', retryAt: new Date(Date.now() + 60_000).toISOString() });
    expect(tray.image).toBe(path.join(ICONS, 'tray-error.png'));
    expect(tray.tooltip).toMatch(/^Offline, retrying in \d+ s$/);
    // Events other than runner:status leave the tray alone.
    const menusBefore = tray.menuSets;
    testCore.emit([{ event: 'log:entries', payload: [] }]);
    expect(tray.menuSets).toBe(menusBefore);
  });

  it('does not rebuild the menu or reset the icon when nothing it shows changed', () => {
    startTray();
    const tray = fake.trays[0]!;
    testCore.setStatus(idle);
    const builds = fake.menus.length;
    const images = tray.images.length;
    testCore.setStatus({ ...idle, reason: 'A different reason, same look.' });
    testCore.setStatus(idle);
    expect(fake.menus.length).toBe(builds);
    expect(tray.menuSets).toBe(builds);
    expect(tray.images.length).toBe(images);
    // Same icon, new line: the menu and tooltip change, the image is not set again.
    testCore.setStatus(working(1));
    testCore.setStatus(working(3));
    expect(fake.menus.length).toBe(builds + 2);
    expect(tray.images.length).toBe(images + 1);
  });

  it('runs Open and Quit from the menu, and opens on click outside macOS', () => {
    startTray('win32');
    const tray = fake.trays[0]!;
    tray.clickMenuItem('Open Runner Tray');
    tray.click();
    expect(onOpen).toHaveBeenCalledTimes(2);
    tray.clickMenuItem('Quit Runner Tray');
    expect(onQuit).toHaveBeenCalledOnce();
  });

  it('uses template images on macOS, where a click opens the menu instead', () => {
    startTray('darwin');
    const tray = fake.trays[0]!;
    expect(tray.image).toBe(path.join(ICONS, 'tray-unpairedTemplate.png'));
    tray.click();
    expect(onOpen).not.toHaveBeenCalled();
    expect(trayIconPath(ICONS, 'idle', 'darwin')).toMatch(/Template\.png$/);
  });

  it('uses the multi-size .ico on Windows', () => {
    expect(trayIconPath(ICONS, 'error', 'win32')).toBe(path.join(ICONS, 'tray-error.ico'));
  });

  it('starts once and stops cleanly (unsubscribes, destroys the tray)', () => {
    const controller = startTray();
    controller.start();
    expect(fake.trays).toHaveLength(1);
    controller.stop();
    controller.stop();
    expect(fake.trays[0]?.destroyed).toBe(true);
    const sets = fake.trays[0]!.menuSets;
    testCore.setStatus(working(1));
    expect(fake.trays[0]!.menuSets).toBe(sets);
  });
});
