import { describe, expect, it } from 'vitest';
import type { UpdateNotice } from '../../shared/updates';
import { DESKTOP_CHECK_PERIOD_MS, DesktopUpdater, type UpdaterApi } from '../../main/electron/updater';
import { trayMenuTemplate, trayView, type TrayActions } from '../../main/electron/tray-menu';
import { FakeClock } from '../helpers/fake-clock';
import { testLogging } from '../helpers/test-logger';

/** electron-updater's autoUpdater as the shell sees it: counts checks, fires its events on demand. */
function fakeUpdater() {
  const listeners = new Map<string, (arg: never) => void>();
  let checks = 0;
  let checked: () => void = () => undefined;
  const api: UpdaterApi = {
    autoDownload: false,
    autoInstallOnAppQuit: false,
    checkForUpdates: () => {
      checks++;
      checked();
      return Promise.resolve(null);
    },
    on: (event: string, listener: (arg: never) => void) => listeners.set(event, listener),
  };
  return {
    api,
    get checks() {
      return checks;
    },
    nextCheck: () => new Promise<void>((resolve) => (checked = resolve)),
    downloaded: (version: string) => listeners.get('update-downloaded')?.({ version } as never),
    fail: (message: string) => listeners.get('error')?.(new Error(message) as never),
  };
}

function updater(isPackaged: boolean, enabled = true) {
  const fake = fakeUpdater();
  const clock = new FakeClock();
  const notices: UpdateNotice[] = [];
  const first = fake.nextCheck();
  const desktop = new DesktopUpdater({
    updater: fake.api,
    isPackaged,
    enabled: () => Promise.resolve(enabled),
    clock,
    log: testLogging().log,
    onAvailable: (n) => notices.push(n),
  });
  desktop.start();
  return { fake, clock, notices, desktop, first };
}

describe('the desktop update check', () => {
  it('a packaged app checks at start and daily, installs on quit, and tells a downloaded version once', async () => {
    const { fake, clock, notices, desktop, first } = updater(true);
    await first;
    expect(fake.checks).toBe(1);
    expect(fake.api).toMatchObject({ autoDownload: true, autoInstallOnAppQuit: true });
    fake.downloaded('0.2.0');
    fake.downloaded('0.2.0');
    expect(notices).toEqual([{ version: '0.2.0', line: 'Update available: 0.2.0 — restart to install' }]);
    fake.fail('offline');
    const daily = fake.nextCheck();
    await clock.advanceAsync(DESKTOP_CHECK_PERIOD_MS);
    await daily;
    expect(fake.checks).toBe(2);
    desktop.stop();
  });

  it('development builds never check', async () => {
    const { fake, clock } = updater(false);
    await clock.advanceAsync(DESKTOP_CHECK_PERIOD_MS * 2);
    expect(fake.checks).toBe(0);
    expect(fake.api.autoInstallOnAppQuit).toBe(false);
  });

  it('the updateCheck setting off: no check', async () => {
    const { fake, clock, desktop } = updater(true, false);
    await clock.advanceAsync(DESKTOP_CHECK_PERIOD_MS * 2);
    expect(fake.checks).toBe(0);
    desktop.stop();
  });

  it("the tray's update line quits only after the running turns", () => {
    let asked = '';
    const view = trayView(
      {
        status: { state: 'working', reason: 'x', active: 1, limit: 1 },
        paired: true,
        paused: false,
        activeTurns: 1,
        quitting: false,
        update: 'Update available: 0.2.0 — restart to install',
      },
      Date.now(),
    );
    // Every action does nothing but the quit after the running turns, which is recorded.
    const actions = new Proxy({} as TrayActions, { get: (_t, key) => (key === 'quitAfterTurns' ? () => (asked = 'after-turns') : () => undefined) });
    const items = trayMenuTemplate(view.menu, actions);
    const line = items.find((i) => i.label === 'Update available: 0.2.0 — restart to install');
    line?.click?.();
    expect(asked).toBe('after-turns');
  });
});
