import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startShell } from '../../main/electron/shell';
import { createFakeElectron } from './fake-electron';
import { startTestShell } from './start-shell';
import { createTestCore } from './test-core';

afterEach(() => {
  vi.useRealTimers();
});

/** Lets every pending promise callback run (one macrotask turn); no timers involved. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('start-up', () => {
  it('sets the data folder (env override) before taking the single-instance lock', async () => {
    const { fake, testCore, shell } = await startTestShell({ env: { RUNNER_TRAY_DATA_DIR: '/tmp/rt-a' } });
    expect(fake.app.getPath('userData')).toBe(path.resolve('/tmp/rt-a'));
    expect(shell.dataDir).toBe(path.resolve('/tmp/rt-a'));
    const order = fake.calls.filter((c) =>
      ['app.setPath:userData', 'app.requestSingleInstanceLock', 'protocol.registerSchemesAsPrivileged', 'app.whenReady'].includes(c),
    );
    expect(order).toEqual(['app.setPath:userData', 'app.requestSingleInstanceLock', 'protocol.registerSchemesAsPrivileged', 'app.whenReady']);
    expect(testCore.options).toEqual([
      { mode: 'electron', appName: 'Runner Tray', appVersion: '9.8.7-test', dataDir: path.resolve('/tmp/rt-a'), electronRunAsNode: true },
    ]);
  });

  it('tells the core that the packaged app cannot run as Node (its RunAsNode fuse is off)', async () => {
    const { testCore } = await startTestShell({}, (fake) => (fake.app.isPackaged = true));
    expect(testCore.options[0]?.electronRunAsNode).toBe(false);
  });

  it('defaults the data folder to <appData>/Runner Tray, as the headless host does', async () => {
    const { fake } = await startTestShell({ env: {} });
    expect(fake.app.getPath('userData')).toBe(path.join('/fake/appData', 'Runner Tray'));
  });

  it('as a second instance, quits without building anything', async () => {
    const fake = createFakeElectron();
    fake.app.lockAvailable = false;
    const testCore = createTestCore();
    const started = await startShell({ electron: fake.api, bootstrap: testCore.bootstrap, env: {}, argv: [], platform: 'linux' });
    expect(started.kind).toBe('not-primary');
    expect(fake.app.quitCompleted).toBe(true);
    expect(testCore.options).toEqual([]);
    expect(fake.windows).toEqual([]);
    expect(fake.trays).toEqual([]);
    expect(fake.ipcMain.handlers.size).toBe(0);
  });

  it('starts in the tray only with --hidden (a login item)', async () => {
    const { fake } = await startTestShell({ argv: ['runner-tray', '--hidden'] });
    expect(fake.windows).toEqual([]);
    expect(fake.trays).toHaveLength(1);
  });

  it('on macOS hides the Dock icon and brings the window forward when shown', async () => {
    const { fake } = await startTestShell({ platform: 'darwin' });
    expect(fake.app.dock.hidden).toBe(true);
    fake.windows[0]!.becomeReady();
    expect(fake.app.focusCalls).toContainEqual({ steal: true });
  });

  it('on Windows sets the AppUserModelID (taskbar and notification identity)', async () => {
    const { fake } = await startTestShell({ platform: 'win32' });
    expect(fake.app.appUserModelId).toBe('dev.runnertray.app');
  });
});

describe('single instance', () => {
  it('a second launch shows and focuses the existing window', async () => {
    const { fake } = await startTestShell();
    const win = fake.windows[0]!;
    win.becomeReady();
    win.minimized = true;
    const focused = win.focusCount;
    fake.app.emit('second-instance', {}, ['runner-tray'], '/');
    expect(fake.windows).toHaveLength(1);
    expect(win.minimized).toBe(false);
    expect(win.visible).toBe(true);
    expect(win.focusCount).toBe(focused + 1);
  });

  it('a second launch opens the window when there is none', async () => {
    const { fake } = await startTestShell({ argv: ['runner-tray', '--hidden'] });
    fake.app.emit('second-instance', {}, ['runner-tray'], '/');
    expect(fake.openWindows()).toHaveLength(1);
  });
});

describe('closing the window', () => {
  it('keeps the tray and the app alive, and Open creates a new window', async () => {
    const { fake, shell } = await startTestShell();
    const first = fake.windows[0]!;
    first.close();
    expect(first.isDestroyed()).toBe(true);
    expect(shell.window.isOpen()).toBe(false);
    expect(fake.app.quitRequests).toBe(0);
    expect(fake.app.quitCompleted).toBe(false);
    expect(fake.trays[0]?.destroyed).toBe(false);

    fake.trays[0]!.clickMenuItem('Open dashboard');
    expect(fake.openWindows()).toHaveLength(1);
    const second = fake.openWindows()[0]!;
    expect(second).not.toBe(first);
    expect(second.webContents.id).not.toBe(first.webContents.id);
    expect(shell.window.isTrustedSender(first.webContents.id)).toBe(false);
    expect(shell.window.isTrustedSender(second.webContents.id)).toBe(true);
  });
});

describe('quitting', () => {
  it('Quit in the tray shuts the core down once, then quits and tears the shell down', async () => {
    const { fake, testCore } = await startTestShell();
    fake.trays[0]!.clickMenuItem('Quit Runner Tray');
    // A second request while the core is stopping is absorbed, not doubled.
    fake.app.quit();
    await settle();
    expect(fake.app.quitCompleted).toBe(true);
    expect(testCore.shutdown).toHaveBeenCalledOnce();
    expect(fake.trays[0]?.destroyed).toBe(true);
    expect(fake.ipcMain.handlers.size).toBe(0);
    expect(fake.openWindows()).toEqual([]);
  });

  it('keeps the window and tray up while the core drains', async () => {
    let finish: () => void = () => {};
    const { fake, testCore } = await startTestShell({}, (_f, core) => {
      core.shutdown.mockImplementation(() => new Promise<void>((resolve) => (finish = resolve)));
    });
    fake.app.quit();
    await settle();
    expect(testCore.shutdown).toHaveBeenCalledOnce();
    expect(fake.app.quitCompleted).toBe(false);
    expect(fake.trays[0]?.destroyed).toBe(false);
    expect(fake.openWindows()).toHaveLength(1);
    finish();
    await settle();
    expect(fake.app.quitCompleted).toBe(true);
  });

  it('quits anyway when the core does not stop within the limit', async () => {
    vi.useFakeTimers();
    const { fake, testCore } = await startTestShell({ shutdownLimitMs: 5_000 }, (_f, core) => {
      core.shutdown.mockImplementation(() => new Promise<void>(() => {}));
    });
    fake.app.quit();
    await vi.advanceTimersByTimeAsync(4_999);
    expect(fake.app.quitCompleted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.app.quitCompleted).toBe(true);
    expect(testCore.logged.some((e) => e.msg.includes('did not stop in time'))).toBe(true);
  });

  it("before-quit runs the core's quit policy: a running turn finishes, it is not canceled", async () => {
    const { fake, testCore } = await startTestShell({}, (_f, core) => core.turns.start(1));
    fake.app.quit();
    await settle();
    expect(fake.app.quitCompleted).toBe(false);
    expect(testCore.shutdown).not.toHaveBeenCalled();
    expect(testCore.turns.canceled).toEqual([]);
    expect(testCore.host.status()).toMatchObject({ state: 'draining', remaining: 1, mode: 'after-turns' });
    // The window stays up and connected while the turn runs.
    expect(fake.openWindows()).toHaveLength(1);
    expect(fake.ipcMain.handlers.size).toBeGreaterThan(0);
    testCore.turns.finishAll();
    await settle();
    expect(testCore.turns.canceled).toEqual([]);
    expect(testCore.shutdown).toHaveBeenCalledOnce();
    expect(fake.app.quitCompleted).toBe(true);
  });

  it('before-quit waits up to the drain limit setting, then cancels what still runs', async () => {
    vi.useFakeTimers();
    const { fake, testCore } = await startTestShell({}, (_f, core) => {
      core.drainMs.value = 60_000;
      core.turns.start(1);
    });
    fake.app.quit();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(testCore.turns.canceled).toEqual([]);
    expect(fake.app.quitCompleted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(testCore.turns.canceled).toEqual(['the runner is quitting (the drain limit passed)']);
    expect(fake.app.quitCompleted).toBe(true);
  });

  it('"Stop now" from the window cancels the running turns and quits', async () => {
    const { fake, testCore } = await startTestShell({}, (_f, core) => core.turns.start(2));
    await testCore.host.invoke('runner:quit', { mode: 'after-turns' });
    await settle();
    expect(fake.app.quitCompleted).toBe(false);
    await testCore.host.invoke('runner:quit', { mode: 'now' });
    await settle();
    expect(testCore.turns.canceled).toEqual(['the runner was stopped', 'the runner was stopped']);
    expect(fake.app.quitCompleted).toBe(true);
  });

  it('"Don\'t quit" while the turns run keeps the app running; a later quit still works', async () => {
    const { fake, testCore } = await startTestShell({}, (_f, core) => core.turns.start(1));
    fake.app.quit();
    await settle();
    await testCore.host.invoke('runner:quit', { mode: 'cancel' });
    await settle();
    testCore.turns.finishAll();
    await settle();
    expect(fake.app.quitCompleted).toBe(false);
    expect(testCore.shutdown).not.toHaveBeenCalled();
    fake.app.quit();
    await settle();
    expect(fake.app.quitCompleted).toBe(true);
  });

  it('quits even when shutting down fails', async () => {
    const { fake, testCore } = await startTestShell({}, (_f, core) => {
      core.shutdown.mockRejectedValue(new Error('disk full'));
    });
    fake.app.quit();
    await settle();
    expect(fake.app.quitCompleted).toBe(true);
    expect(testCore.logged.find((e) => e.level === 'error')?.data).toMatchObject({ error: 'disk full' });
  });
});
