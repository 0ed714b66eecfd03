import path from 'node:path';
import type { TrayIconKind } from '../../shared/status';
import type { AppApi } from './electron-api';

export const APP_NAME = 'Runner Tray';

/** Tests (and operators with several profiles) point the app at another data folder. */
export const DATA_DIR_ENV = 'RUNNER_TRAY_DATA_DIR';

/**
 * Chooses the data folder and tells Electron, before anything reads userData: the
 * single-instance lock is keyed by it, so two data folders are two independent apps
 * (which is what lets tests run side by side), and Chromium keeps its own state there.
 *
 * Without the override the folder is `<appData>/Runner Tray`, the same one the headless
 * host picks by default (main/core/paths.ts), so both find the same files.
 */
export function configureDataDir(app: Pick<AppApi, 'getPath' | 'setPath'>, env: Record<string, string | undefined>): string {
  const override = env[DATA_DIR_ENV]?.trim();
  const dataDir = override ? path.resolve(override) : path.join(app.getPath('appData'), APP_NAME);
  app.setPath('userData', dataDir);
  return dataDir;
}

export interface AppFiles {
  /** The built renderer (vite → dist/renderer); the app protocol serves only this. */
  rendererDir: string;
  /** The bundled, sandbox-compatible preload (scripts/build-electron.mjs). */
  preloadPath: string;
  /** Tray icons copied next to the bundle by the build, so `files: dist/**` ships them. */
  iconsDir: string;
}

/**
 * Where the built files are, relative to the app root (`app.getAppPath()`): the project
 * folder under `electron .`, the app.asar when packaged. Both have the same layout.
 */
export function appFiles(appRoot: string): AppFiles {
  return {
    rendererDir: path.join(appRoot, 'dist', 'renderer'),
    preloadPath: path.join(appRoot, 'dist', 'electron', 'preload.cjs'),
    iconsDir: path.join(appRoot, 'dist', 'electron', 'icons'),
  };
}

/**
 * The tray image for a state. macOS gets the black-and-alpha template variant (the file
 * name must end in "Template" for Electron to treat it so, which lets the menu bar tint
 * it for light and dark); Windows gets a multi-size .ico, so the notification area
 * picks an exact size at 100–300 % scaling instead of resampling a PNG; Linux gets the
 * coloured PNG, with Electron picking the `@2x` file beside it on high-density screens.
 */
export function trayIconPath(iconsDir: string, kind: TrayIconKind, platform: string): string {
  const file = platform === 'darwin' ? `tray-${kind}Template.png` : platform === 'win32' ? `tray-${kind}.ico` : `tray-${kind}.png`;
  return path.join(iconsDir, file);
}
