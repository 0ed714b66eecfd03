import os from 'node:os';
import path from 'node:path';
import type { Core, CoreOptions } from '../core/bootstrap';
import { systemClock, type Clock, type Logger } from '../core/base/ports';
import type { SettingsView } from '../../shared/contract';
import { DesktopUpdater, type UpdaterApi } from './updater';
import { refusedDebugSwitch } from './debug-switches';
import { APP_NAME, appFiles, configureDataDir, trayIconPath } from './app-paths';
import { installAppProtocol, registerAppScheme } from './app-protocol';
import type { ElectronApi } from './electron-api';
import { IpcDoor } from './ipc';
import { LaunchAtLogin } from './launch-at-login';
import { QuitSequence } from './quit';
import { denyAllPermissions, hardenWebContents } from './security';
import { TrayController } from './tray';
import { MainWindow } from './window';

export const APP_USER_MODEL_ID = 'dev.runnertray.app';
/** Passed by a login item: start in the tray without opening the window. */
export const HIDDEN_FLAG = '--hidden';

/** What the shell needs of the core: its host, its logger and its quit policy. */
export type ShellCore = Pick<Core, 'host' | 'log' | 'quit' | 'onQuit' | 'quitDrainMs' | 'announceUpdate'>;
export type ShellCoreOptions = Pick<CoreOptions, 'mode' | 'appName' | 'appVersion' | 'dataDir' | 'electronRunAsNode'>;

export interface ShellOptions {
  electron: ElectronApi;
  env: Record<string, string | undefined>;
  argv: readonly string[];
  platform: string;
  /**
   * Builds the core (bootstrapCore in main.ts). Injected so that this module, and the
   * tests that drive it under Node, do not load the whole core just to get its type.
   */
  bootstrap: (options: ShellCoreOptions) => Promise<ShellCore>;
  /** The backstop over the core's own drain limit (default: that limit plus a minute). */
  shutdownLimitMs?: number;
  /** electron-updater's autoUpdater, loaded only by a packaged build (updater.ts). */
  updater?: () => Promise<UpdaterApi>;
  /** The update check's timers (default: the system clock). */
  clock?: Clock;
}

export interface Shell {
  readonly dataDir: string;
  readonly core: ShellCore;
  readonly window: MainWindow;
  readonly tray: TrayController;
  readonly ipc: IpcDoor;
}

export type ShellStart = { kind: 'running'; shell: Shell } | { kind: 'not-primary' } | { kind: 'refused'; reason: string };

/**
 * The Electron adapter's composition root: Electron glue around one core. The order is
 * Electron's, not ours to choose: the data folder before the single-instance lock (the
 * lock lives in it), privileged schemes before ready, windows after ready.
 */
export async function startShell(options: ShellOptions): Promise<ShellStart> {
  const { electron, platform } = options;
  const { app } = electron;

  // Before anything else exists: a packaged build never runs with a debugging door open.
  const refused = refuseDebugSwitch(app, options.argv, platform);
  if (refused) return refused;

  const dataDir = configureDataDir(app, options.env);
  if (!app.requestSingleInstanceLock()) {
    // Another Runner Tray owns this data folder; it got 'second-instance' and shows itself.
    app.quit();
    return { kind: 'not-primary' };
  }
  registerAppScheme(electron.protocol);
  if (platform === 'win32') app.setAppUserModelId(APP_USER_MODEL_ID);

  let log: Logger | null = null;
  let window: MainWindow | null = null;
  let showWhenReady = !options.argv.includes(HIDDEN_FLAG);
  let stopShell: () => void = () => {};
  let corePromise: Promise<ShellCore> | null = null;

  // Registered before ready so that nothing reaching us early is lost.
  app.on('second-instance', () => {
    if (window) window.show();
    else showWhenReady = true;
  });
  // A tray app outlives its window; having a listener at all stops Electron's default quit.
  app.on('window-all-closed', () => {});
  let builtCore: ShellCore | null = null;
  const quit = new QuitSequence({
    app,
    limitMs: () => options.shutdownLimitMs ?? (builtCore ? builtCore.quitDrainMs() : 0) + 60_000,
    log: () => log,
    stop: async () => {
      // The core's quit policy: the running turns finish (up to the drain limit) before we
      // go, and the window and tray stay up meanwhile, so the operator sees it finish.
      if (corePromise) {
        const outcome = await (await corePromise).quit('after-turns');
        if (outcome.kind === 'canceled') return 'canceled';
      }
      stopShell();
      return 'stopped';
    },
  });
  app.on('before-quit', (event) => quit.onBeforeQuit(event));

  await app.whenReady();
  // A tray app: no Dock icon, as the packaged build's LSUIElement also says; running
  // `electron .` in development then behaves like the installed app.
  if (platform === 'darwin') app.dock?.hide();

  corePromise = options.bootstrap({
    mode: 'electron',
    appName: APP_NAME,
    appVersion: app.getVersion(),
    dataDir,
    // The packaged app's RunAsNode fuse is off (electron-builder.yml): the core must not rely on it.
    electronRunAsNode: !app.isPackaged,
  });
  const core = await corePromise;
  builtCore = core;
  const shellLog = core.log.child('electron');
  log = shellLog;
  // A quit asked of the core itself (the window's "Stop after the running turns", the
  // tray's Quit items) goes out through Electron's quit path, which waits for the core.
  core.onQuit(() => app.quit());

  const { mainWindow, ipc, tray, stop } = startSurfaces(options, core, shellLog);
  window = mainWindow;
  stopShell = stop;

  shellLog.info('desktop shell started', { dataDir, packaged: app.isPackaged });
  if (showWhenReady && !quit.stopping) mainWindow.show();
  return { kind: 'running', shell: { dataDir, core, window: mainWindow, tray, ipc } };
}

/** A packaged build never runs with a debugging door open: refused before anything else exists. */
function refuseDebugSwitch(app: ElectronApi['app'], argv: readonly string[], platform: string): ShellStart | null {
  const debugSwitch = app.isPackaged ? refusedDebugSwitch(argv, platform) : null;
  if (debugSwitch) {
    const reason = `Runner Tray does not start with ${debugSwitch}: it would let any program on this computer control the app.`;
    console.error(reason);
    app.exit(1);
    return { kind: 'refused', reason };
  }
  return null;
}

/** Hardening, the app protocol, then the window, the IPC door, the tray and the login item, started; returns them and their stop. */
function startSurfaces(options: ShellOptions, core: ShellCore, shellLog: Logger) {
  const { electron, platform } = options;
  const { app } = electron;

  // Hardening first: before the first webContents or request can exist.
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, shellLog));
  denyAllPermissions(electron.session.defaultSession, shellLog);
  const files = appFiles(app.getAppPath());
  installAppProtocol(electron.protocol, files.rendererDir);

  const mainWindow = new MainWindow({
    electron,
    preloadPath: files.preloadPath,
    platform,
    devTools: !app.isPackaged,
    log: shellLog,
    iconPath: path.join(files.iconsDir, 'app.png'),
    watch: () => core.host.watch(),
  });
  const ipc = new IpcDoor({ electron, host: core.host, senders: mainWindow, log: shellLog });
  const tray = new TrayController({
    electron,
    host: core.host,
    iconPath: (kind) => trayIconPath(files.iconsDir, kind, platform),
    platform,
    onOpen: (view) => mainWindow.show(view),
    onQuit: () => app.quit(),
  });
  // The launchAtLogin setting, applied at start and on every settings:changed event.
  const loginItem = new LaunchAtLogin({ app, platform, env: options.env, homedir: os.homedir(), execPath: process.execPath, log: shellLog });
  ipc.start();
  tray.start();
  loginItem.start(core.host);
  const updates = startUpdates(options, core, shellLog);
  const stop = () => {
    updates?.stop();
    loginItem.stop();
    tray.stop();
    ipc.stop();
  };
  return { mainWindow, ipc, tray, stop };
}

/** The packaged app's update check (updater.ts); nothing in development. */
function startUpdates(options: ShellOptions, core: ShellCore, shellLog: Logger): { stop(): void } | null {
  const load = options.updater;
  if (!load || !options.electron.app.isPackaged) return null;
  let updates: DesktopUpdater | null = null;
  let stopped = false;
  void load().then(
    (updater) => {
      if (stopped) return;
      updates = new DesktopUpdater({
        updater,
        isPackaged: true,
        enabled: async () => {
          const view = await core.host.invoke('settings:get', undefined);
          return view.ok ? (view.value as SettingsView).settings.updateCheck : true;
        },
        clock: options.clock ?? systemClock,
        log: shellLog.child('updates'),
        onAvailable: (notice) => core.announceUpdate(notice),
      });
      updates.start();
    },
    (error: unknown) => shellLog.debug('no update check: the updater did not load', { error: String(error) }),
  );
  return {
    stop: () => {
      stopped = true;
      updates?.stop();
    },
  };
}
