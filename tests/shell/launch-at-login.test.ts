import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyLaunchAtLogin, autostartFile, desktopEntry, LaunchAtLogin, quoteExecArg, type LaunchAtLoginOptions } from '../../main/electron/launch-at-login';
import { createFakeElectron, type FakeElectron } from './fake-electron';
import { TrayTestHost } from './tray-host';

let home: string;
let fake: FakeElectron;

beforeEach(() => {
  home = mkdtempSync(path.join(os.tmpdir(), 'rt-home-'));
  fake = createFakeElectron();
  fake.app.isPackaged = true;
});

afterEach(() => {
  rmSync(home, { recursive: true, force: true });
});

function options(platform: string, env: Record<string, string | undefined> = {}): LaunchAtLoginOptions {
  return { app: fake.app, platform, env, homedir: home, execPath: '/opt/Runner Tray/runner-tray' };
}

describe('launch at login', () => {
  it('macOS: a login item, on and off', async () => {
    expect(await applyLaunchAtLogin(true, options('darwin'))).toEqual({ applied: true, where: 'login items' });
    await applyLaunchAtLogin(false, options('darwin'));
    expect(fake.app.loginItemSettings).toEqual([{ openAtLogin: true }, { openAtLogin: false }]);
  });

  it('Windows: a login item that starts this executable in the tray (--hidden)', async () => {
    await applyLaunchAtLogin(true, options('win32'));
    expect(fake.app.loginItemSettings).toEqual([{ openAtLogin: true, path: '/opt/Runner Tray/runner-tray', args: ['--hidden'] }]);
  });

  it('Linux: an XDG autostart entry under ~/.config/autostart, removed when turned off', async () => {
    const file = path.join(home, '.config', 'autostart', 'runner-tray.desktop');
    expect(await applyLaunchAtLogin(true, options('linux'))).toEqual({ applied: true, where: file });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('[Desktop Entry]\nType=Application\nName=Runner Tray\n');
    expect(text).toContain('Exec="/opt/Runner Tray/runner-tray" --hidden\n');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(fake.app.loginItemSettings).toEqual([]);
    await applyLaunchAtLogin(false, options('linux'));
    expect(existsSync(file)).toBe(false);
    // Turning off what is already off is fine.
    await applyLaunchAtLogin(false, options('linux'));
  });

  it('Linux: starts the AppImage file itself when running from one, and honours XDG_CONFIG_HOME', async () => {
    const config = path.join(home, 'xdg');
    await applyLaunchAtLogin(true, options('linux', { APPIMAGE: '/home/ada/Apps/Runner-Tray-0.1.0.AppImage', XDG_CONFIG_HOME: config }));
    const text = readFileSync(path.join(config, 'autostart', 'runner-tray.desktop'), 'utf8');
    expect(text).toContain('Exec=/home/ada/Apps/Runner-Tray-0.1.0.AppImage --hidden\n');
    // A relative XDG_CONFIG_HOME is invalid per the spec and ignored.
    expect(autostartFile({ XDG_CONFIG_HOME: 'relative' }, home)).toBe(path.join(home, '.config', 'autostart', 'runner-tray.desktop'));
  });

  it('quotes Exec arguments as the Desktop Entry spec says', () => {
    expect(quoteExecArg('/usr/bin/runner-tray')).toBe('/usr/bin/runner-tray');
    expect(quoteExecArg('/opt/My App/app')).toBe('"/opt/My App/app"');
    expect(quoteExecArg('/tmp/a"b$c`d')).toBe('"/tmp/a\\\\"b\\\\$c\\\\`d"');
    expect(quoteExecArg('/tmp/back\\slash')).toBe('"/tmp/back\\\\\\\\slash"');
    expect(quoteExecArg('/tmp/100%')).toBe('/tmp/100%%');
    expect(desktopEntry(['/a b/c', '--hidden']).split('\n')).toContain('Exec="/a b/c" --hidden');
  });

  it('registers nothing in development (not packaged)', async () => {
    fake.app.isPackaged = false;
    expect(await applyLaunchAtLogin(true, options('linux'))).toEqual({ applied: false, reason: 'not a packaged app' });
    expect(existsSync(path.join(home, '.config'))).toBe(false);
  });

  it('follows the setting: at start, then on settings:changed events, applying only real changes', async () => {
    const host = new TrayTestHost();
    host.settings = { ...host.settings, launchAtLogin: true };
    const loginItem = new LaunchAtLogin(options('darwin'));
    loginItem.start(host);
    await new Promise((resolve) => setImmediate(resolve));
    await loginItem.settled();
    expect(fake.app.loginItemSettings).toEqual([{ openAtLogin: true }]);
    host.changeSettings({ runnerName: 'renamed' });
    await loginItem.settled();
    expect(fake.app.loginItemSettings).toHaveLength(1);
    host.changeSettings({ launchAtLogin: false });
    host.changeSettings({ launchAtLogin: true });
    host.changeSettings({ launchAtLogin: false });
    await loginItem.settled();
    expect(fake.app.loginItemSettings.map((s) => s.openAtLogin)).toEqual([true, false, true, false]);
    loginItem.stop();
    host.changeSettings({ launchAtLogin: true });
    await loginItem.settled();
    expect(fake.app.loginItemSettings).toHaveLength(4);
  });
});
