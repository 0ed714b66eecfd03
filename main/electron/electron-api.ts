/**
 * The narrow slice of Electron the shell uses, written as plain structural types.
 *
 * Why: everything in main/electron except main.ts takes this interface instead of
 * importing `electron`, so the whole shell (window, tray, IPC door, protocol, quit path)
 * runs under plain Node in tests with a fake (tests/shell/fake-electron.ts). main.ts
 * passes the real module, and the compiler checks there that it fits this shape, so a
 * change in Electron's API shows up as a type error rather than a runtime surprise.
 *
 * Only what the shell calls is listed; anything new must be added here on purpose.
 */

/** An Electron event whose default action can be cancelled. */
export interface PreventableEvent {
  preventDefault(): void;
}

export interface FrameApi {
  readonly url: string;
  /** null for a top-level (main) frame. */
  readonly parent: FrameApi | null;
}

export interface WebContentsApi {
  readonly id: number;
  isDestroyed(): boolean;
  send(channel: string, ...args: unknown[]): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
  on(event: 'will-navigate', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-redirect', listener: (event: PreventableEvent, url: string) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
}

export interface WebPreferencesSpec {
  preload: string;
  contextIsolation: true;
  sandbox: true;
  nodeIntegration: false;
  nodeIntegrationInWorker: false;
  nodeIntegrationInSubFrames: false;
  webSecurity: true;
  allowRunningInsecureContent: false;
  webviewTag: false;
  experimentalFeatures: false;
  disableBlinkFeatures: string;
  navigateOnDragDrop: false;
  enableWebSQL: false;
  spellcheck: false;
  safeDialogs: true;
  devTools: boolean;
}

export interface WindowOptions {
  width: number;
  height: number;
  minWidth: number;
  minHeight: number;
  show: boolean;
  title: string;
  backgroundColor: string;
  autoHideMenuBar: boolean;
  icon?: string;
  webPreferences: WebPreferencesSpec;
}

export interface BrowserWindowApi {
  readonly webContents: WebContentsApi;
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
  close(): void;
  once(event: 'ready-to-show', listener: () => void): unknown;
  on(event: 'closed', listener: () => void): unknown;
}

/** Opaque to the shell: built by Menu.buildFromTemplate, handed to the tray. */
export type MenuApi = object;

export interface MenuItemSpec {
  label?: string;
  type?: 'normal' | 'separator' | 'submenu';
  enabled?: boolean;
  click?: () => void;
  submenu?: MenuItemSpec[];
}

/** A native notification (Electron's `Notification`); shown once, clicked maybe. */
export interface NotificationApi {
  show(): void;
  on(event: 'click', listener: () => void): unknown;
  on(event: 'close', listener: () => void): unknown;
}

export interface NotificationOptions {
  title: string;
  body: string;
  silent?: boolean;
}

/** Login item settings on macOS and Windows (Linux uses an XDG autostart file instead). */
export interface LoginItemSettingsSpec {
  openAtLogin: boolean;
  /** Windows: arguments for the started app (ours: --hidden, so it starts in the tray). */
  args?: string[];
  path?: string;
}

/**
 * Tray images are given as file paths: Electron loads the @2x variant beside the file by
 * itself, and on macOS a file name ending in "Template" marks a template image.
 */
export interface TrayApi {
  setImage(imagePath: string): void;
  setToolTip(toolTip: string): void;
  setContextMenu(menu: MenuApi | null): void;
  on(event: 'click', listener: () => void): unknown;
  destroy(): void;
  isDestroyed(): boolean;
}

/** What an `ipcMain.handle` listener receives; see ipc.ts for the checks made on it. */
export interface InvokeEventApi {
  readonly sender: { readonly id: number };
  readonly senderFrame: FrameApi | null;
}

export interface IpcMainApi {
  handle(channel: string, listener: (event: InvokeEventApi, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export interface SchemePrivileges {
  standard: boolean;
  secure: boolean;
  supportFetchAPI: boolean;
  corsEnabled: boolean;
  codeCache: boolean;
  stream: boolean;
}

export interface ProtocolApi {
  registerSchemesAsPrivileged(schemes: Array<{ scheme: string; privileges: SchemePrivileges }>): void;
  handle(scheme: string, handler: (request: Request) => Promise<Response>): void;
}

export interface SessionApi {
  setPermissionRequestHandler(handler: (webContents: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: (webContents: unknown, permission: string, requestingOrigin: string) => boolean): void;
}

export type UserDataPathName = 'userData';

export interface AppApi {
  readonly isPackaged: boolean;
  readonly dock?: { hide(): void } | undefined;
  getName(): string;
  getVersion(): string;
  getAppPath(): string;
  getPath(name: 'appData' | 'userData'): string;
  setPath(name: UserDataPathName, path: string): void;
  requestSingleInstanceLock(): boolean;
  setLoginItemSettings(settings: LoginItemSettingsSpec): void;
  setAppUserModelId(id: string): void;
  whenReady(): Promise<void>;
  focus(options?: { steal: boolean }): void;
  quit(): void;
  exit(exitCode?: number): void;
  on(event: 'second-instance', listener: () => void): unknown;
  on(event: 'window-all-closed', listener: () => void): unknown;
  on(event: 'before-quit', listener: (event: PreventableEvent) => void): unknown;
  on(event: 'web-contents-created', listener: (event: unknown, contents: WebContentsApi) => void): unknown;
}

/** What the lending terms read of Electron's powerMonitor (only after the app is ready). */
export interface PowerMonitorApi {
  /** Seconds since the last input of the operator's session. */
  getSystemIdleTime(): number;
  isOnBatteryPower(): boolean;
}

export interface ElectronApi {
  readonly app: AppApi;
  readonly BrowserWindow: new (options: WindowOptions) => BrowserWindowApi;
  readonly Tray: new (imagePath: string) => TrayApi;
  readonly Menu: { buildFromTemplate(template: MenuItemSpec[]): MenuApi };
  readonly Notification: { new (options: NotificationOptions): NotificationApi; isSupported(): boolean };
  readonly ipcMain: IpcMainApi;
  readonly protocol: ProtocolApi;
  readonly session: { readonly defaultSession: SessionApi };
  readonly nativeTheme: { readonly shouldUseDarkColors: boolean };
  /** Absent from the shell's test fakes: the core then reads the headless sources. */
  readonly powerMonitor?: PowerMonitorApi;
}
