import type {
  AppApi,
  BrowserWindowApi,
  ElectronApi,
  FrameApi,
  InvokeEventApi,
  IpcMainApi,
  LoginItemSettingsSpec,
  MenuItemSpec,
  NotificationApi,
  NotificationOptions,
  PreventableEvent,
  ProtocolApi,
  SchemePrivileges,
  SessionApi,
  TrayApi,
  WebContentsApi,
  WindowOptions,
} from '../../main/electron/electron-api';

/**
 * A fake of the Electron surface the shell uses (main/electron/electron-api.ts), for
 * driving the shell under plain Node. It behaves like Electron where the shell relies on
 * it (a closed window is destroyed, the last window closing quits the app unless someone
 * listens to 'window-all-closed', `before-quit` can be prevented, a second ipcMain.handle
 * on one channel throws, IPC answers are structured-cloned) and records what the shell
 * did, for the tests to look at. Test-only helpers are plain methods on the fakes
 * (`navigate`, `invoke`, `requestPermission`, `close`, `clickMenuItem`, …).
 */

type Listener = (...args: never[]) => unknown;

class Emitter {
  private readonly listeners = new Map<string, Array<{ fn: Listener; once: boolean }>>();

  on(event: string, fn: Listener): this {
    this.add(event, fn, false);
    return this;
  }

  once(event: string, fn: Listener): this {
    this.add(event, fn, true);
    return this;
  }

  listenerCount(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  emit(event: string, ...args: unknown[]): void {
    const list = this.listeners.get(event) ?? [];
    this.listeners.set(
      event,
      list.filter((l) => !l.once),
    );
    for (const l of list) (l.fn as (...a: unknown[]) => unknown)(...args);
  }

  private add(event: string, fn: Listener, once: boolean): void {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), { fn, once }]);
  }
}

export class FakeEvent implements PreventableEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export function mainFrame(url: string): FrameApi {
  return { url, parent: null };
}

export function subFrame(url: string, parentUrl = 'app://renderer/index.html'): FrameApi {
  return { url, parent: mainFrame(parentUrl) };
}

let nextWebContentsId = 1;

export class FakeWebContents extends Emitter implements WebContentsApi {
  readonly id = nextWebContentsId++;
  destroyed = false;
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];
  windowOpenHandler: ((details: { url: string }) => { action: 'deny' }) | null = null;

  isDestroyed(): boolean {
    return this.destroyed;
  }

  send(channel: string, ...args: unknown[]): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
    // What Electron does to every IPC message: anything not cloneable throws here.
    this.sent.push({ channel, args: structuredClone(args) });
  }

  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void {
    this.windowOpenHandler = handler;
  }

  /** The page tries to navigate; true when the shell let it. */
  navigate(url: string): boolean {
    const event = new FakeEvent();
    this.emit('will-navigate', event, url);
    return !event.defaultPrevented;
  }

  redirect(url: string): boolean {
    const event = new FakeEvent();
    this.emit('will-redirect', event, url);
    return !event.defaultPrevented;
  }

  attachWebview(): boolean {
    const event = new FakeEvent();
    this.emit('will-attach-webview', event, {}, {});
    return !event.defaultPrevented;
  }

  /** `window.open` from the page: what the window-open handler answered (Electron allows without one). */
  openWindow(url: string): 'allow' | 'deny' {
    return this.windowOpenHandler ? this.windowOpenHandler({ url }).action : 'allow';
  }
}

export interface FakeElectron {
  readonly api: ElectronApi;
  readonly app: FakeApp;
  readonly windows: FakeBrowserWindow[];
  readonly trays: FakeTray[];
  readonly menus: MenuItemSpec[][];
  /** Every notification the app created, in order, with whether it was shown. */
  readonly notifications: FakeNotification[];
  /** What Notification.isSupported() answers (true by default). */
  notificationsSupported: boolean;
  readonly ipcMain: FakeIpcMain;
  readonly protocol: FakeProtocol;
  readonly session: FakeSession;
  readonly nativeTheme: { shouldUseDarkColors: boolean };
  /** Every call that matters for ordering, e.g. 'app.setPath:userData'. */
  readonly calls: string[];
  openWindows(): FakeBrowserWindow[];
}

export class FakeApp extends Emitter implements AppApi {
  isPackaged = false;
  dock = { hidden: false, hide: () => void (this.dock.hidden = true) };
  lockAvailable = true;
  readonly paths = new Map<string, string>([['appData', '/fake/appData']]);
  readonly focusCalls: Array<{ steal: boolean } | undefined> = [];
  quitRequests = 0;
  exitCode: number | null = null;
  /** True once a quit went through (was not prevented). */
  quitCompleted = false;
  appUserModelId: string | null = null;
  readonly loginItemSettings: LoginItemSettingsSpec[] = [];

  constructor(
    private readonly calls: string[],
    private readonly closeAll: () => void,
    readonly appPath: string,
  ) {
    super();
  }

  getName(): string {
    return 'Runner Tray';
  }
  getVersion(): string {
    return '9.8.7-test';
  }
  getAppPath(): string {
    return this.appPath;
  }
  getPath(name: 'appData' | 'userData'): string {
    const value = this.paths.get(name);
    if (!value) throw new Error(`Failed to get '${name}' path`);
    return value;
  }
  setPath(name: 'userData', value: string): void {
    this.calls.push(`app.setPath:${name}`);
    this.paths.set(name, value);
  }
  requestSingleInstanceLock(): boolean {
    this.calls.push('app.requestSingleInstanceLock');
    return this.lockAvailable;
  }
  setLoginItemSettings(settings: LoginItemSettingsSpec): void {
    this.loginItemSettings.push(structuredClone(settings));
  }
  setAppUserModelId(id: string): void {
    this.appUserModelId = id;
  }
  whenReady(): Promise<void> {
    this.calls.push('app.whenReady');
    return Promise.resolve();
  }
  focus(options?: { steal: boolean }): void {
    this.focusCalls.push(options);
  }
  /** Like Electron: before-quit may be prevented; otherwise windows close and the app ends. */
  quit(): void {
    this.quitRequests++;
    this.calls.push('app.quit');
    const event = new FakeEvent();
    this.emit('before-quit', event);
    if (event.defaultPrevented) return;
    this.quitCompleted = true;
    this.closeAll();
  }
  exit(exitCode = 0): void {
    this.exitCode = exitCode;
  }
}

export class FakeBrowserWindow extends Emitter implements BrowserWindowApi {
  readonly webContents = new FakeWebContents();
  loadedUrl: string | null = null;
  visible = false;
  minimized = false;
  focusCount = 0;
  destroyed = false;

  constructor(
    readonly options: WindowOptions,
    private readonly onClosed: (window: FakeBrowserWindow) => void,
  ) {
    super();
  }

  loadURL(url: string): Promise<void> {
    this.loadedUrl = url;
    return Promise.resolve();
  }
  show(): void {
    this.visible = true;
  }
  focus(): void {
    this.focusCount++;
  }
  restore(): void {
    this.minimized = false;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  /** Closing a window destroys it (the shell does not hide it instead). */
  close(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.webContents.destroyed = true;
    this.emit('closed');
    this.onClosed(this);
  }
  /** The renderer painted its first frame. */
  becomeReady(): void {
    this.emit('ready-to-show');
  }
}

export class FakeTray extends Emitter implements TrayApi {
  readonly images: string[];
  tooltip: string | null = null;
  menu: { template: MenuItemSpec[] } | null = null;
  menuSets = 0;
  destroyed = false;

  constructor(image: string) {
    super();
    this.images = [image];
  }

  get image(): string {
    return this.images[this.images.length - 1] ?? '';
  }
  setImage(imagePath: string): void {
    this.images.push(imagePath);
  }
  setToolTip(toolTip: string): void {
    this.tooltip = toolTip;
  }
  setContextMenu(menu: object | null): void {
    this.menuSets++;
    this.menu = menu as { template: MenuItemSpec[] } | null;
  }
  destroy(): void {
    this.destroyed = true;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  click(): void {
    this.emit('click', {}, {}, {});
  }
  menuLabels(): string[] {
    return (this.menu?.template ?? []).map((item) => (item.type === 'separator' ? '---' : (item.label ?? '')));
  }
  /** The item at a label path: 'Quit Runner Tray', or 'Pause for > 1 hour' for a submenu item. */
  menuItem(path: string): MenuItemSpec | undefined {
    let items = this.menu?.template ?? [];
    let found: MenuItemSpec | undefined;
    for (const label of path.split(' > ')) {
      found = items.find((i) => i.label === label);
      items = found?.submenu ?? [];
    }
    return found;
  }
  clickMenuItem(path: string): void {
    const item = this.menuItem(path);
    if (!item?.click || item.enabled === false) throw new Error(`no clickable menu item "${path}"`);
    item.click();
  }
}

export class FakeNotification extends Emitter implements NotificationApi {
  shown = false;
  constructor(readonly options: NotificationOptions) {
    super();
  }
  show(): void {
    this.shown = true;
  }
  /** The operator clicks the notification. */
  click(): void {
    this.emit('click', {});
  }
}

type InvokeListener = (event: InvokeEventApi, ...args: unknown[]) => Promise<unknown>;

export class FakeIpcMain implements IpcMainApi {
  readonly handlers = new Map<string, InvokeListener>();

  handle(channel: string, listener: InvokeListener): void {
    // Electron refuses a second handler for a channel; so does the fake.
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    this.handlers.set(channel, listener);
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel);
  }
  /** A renderer's ipcRenderer.invoke: the answer crosses the process boundary cloned. */
  async invoke(channel: string, from: { webContentsId: number; frame: FrameApi | null }, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    const event: InvokeEventApi = { sender: { id: from.webContentsId }, senderFrame: from.frame };
    return structuredClone(await handler(event, ...structuredClone(args)));
  }
}

export class FakeProtocol implements ProtocolApi {
  readonly privileged: Array<{ scheme: string; privileges: SchemePrivileges }> = [];
  readonly handlers = new Map<string, (request: Request) => Promise<Response>>();

  constructor(private readonly calls: string[]) {}

  registerSchemesAsPrivileged(schemes: Array<{ scheme: string; privileges: SchemePrivileges }>): void {
    this.calls.push('protocol.registerSchemesAsPrivileged');
    this.privileged.push(...schemes);
  }
  handle(scheme: string, handler: (request: Request) => Promise<Response>): void {
    this.calls.push(`protocol.handle:${scheme}`);
    this.handlers.set(scheme, handler);
  }
  fetch(url: string, init?: RequestInit): Promise<Response> {
    const scheme = new URL(url).protocol.slice(0, -1);
    const handler = this.handlers.get(scheme);
    if (!handler) throw new Error(`no handler for ${scheme}:`);
    return handler(new Request(url, init));
  }
}

export class FakeSession implements SessionApi {
  requestHandler: ((webContents: unknown, permission: string, callback: (granted: boolean) => void) => void) | null = null;
  checkHandler: ((webContents: unknown, permission: string, requestingOrigin: string) => boolean) | null = null;

  setPermissionRequestHandler(handler: NonNullable<FakeSession['requestHandler']>): void {
    this.requestHandler = handler;
  }
  setPermissionCheckHandler(handler: NonNullable<FakeSession['checkHandler']>): void {
    this.checkHandler = handler;
  }
  /** Electron grants everything when no handler is set; so does the fake. */
  requestPermission(permission: string): Promise<boolean> {
    const handler = this.requestHandler;
    if (!handler) return Promise.resolve(true);
    return new Promise((resolve) => handler({}, permission, resolve));
  }
  checkPermission(permission: string, origin = 'app://renderer'): boolean {
    return this.checkHandler ? this.checkHandler({}, permission, origin) : true;
  }
}

export function createFakeElectron(options: { appPath?: string } = {}): FakeElectron {
  const calls: string[] = [];
  const windows: FakeBrowserWindow[] = [];
  const trays: FakeTray[] = [];
  const menus: MenuItemSpec[][] = [];
  const notifications: FakeNotification[] = [];
  const openWindows = () => windows.filter((w) => !w.destroyed);

  let quitting = false;
  const app: FakeApp = new FakeApp(
    calls,
    () => {
      quitting = true;
      for (const w of openWindows()) w.close();
    },
    options.appPath ?? '/fake/app',
  );
  const onClosed = () => {
    // Electron's default when the last window closes is to quit, unless someone listens.
    if (quitting || openWindows().length > 0) return;
    if (app.listenerCount('window-all-closed') === 0) app.quit();
    else app.emit('window-all-closed');
  };

  class BrowserWindow extends FakeBrowserWindow {
    constructor(windowOptions: WindowOptions) {
      super(windowOptions, onClosed);
      calls.push('new BrowserWindow');
      windows.push(this);
      app.emit('web-contents-created', new FakeEvent(), this.webContents);
    }
  }
  class Tray extends FakeTray {
    constructor(image: string) {
      super(image);
      calls.push('new Tray');
      trays.push(this);
    }
  }

  const ipcMain = new FakeIpcMain();
  const protocol = new FakeProtocol(calls);
  const session = new FakeSession();
  const nativeTheme = { shouldUseDarkColors: false };
  const state = { notificationsSupported: true };
  class Notification extends FakeNotification {
    static isSupported(): boolean {
      return state.notificationsSupported;
    }
    constructor(options: NotificationOptions) {
      super(options);
      notifications.push(this);
    }
  }
  const api: ElectronApi = {
    app,
    Notification,
    BrowserWindow,
    Tray,
    Menu: {
      buildFromTemplate(template: MenuItemSpec[]) {
        menus.push(template);
        return { template };
      },
    },
    ipcMain,
    protocol,
    session: { defaultSession: session },
    nativeTheme,
  };
  return {
    api,
    app,
    windows,
    trays,
    menus,
    notifications,
    get notificationsSupported() {
      return state.notificationsSupported;
    },
    set notificationsSupported(value: boolean) {
      state.notificationsSupported = value;
    },
    ipcMain,
    protocol,
    session,
    nativeTheme,
    calls,
    openWindows,
  };
}
