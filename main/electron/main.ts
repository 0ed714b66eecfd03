/**
 * The Electron entry (bundled to dist/electron/main.cjs). The only file of the shell
 * that imports `electron`: it hands the real module to the shell, and the compiler
 * checks here that the module fits the narrow ElectronApi the shell is written against.
 */
import * as electron from 'electron';
import { writeFile } from 'node:fs/promises';
import { bootstrapCore } from '../core/bootstrap';
import type { ElectronApi } from './electron-api';
import { electronSettingsBackend } from './electron-settings';
import { electronLendingSources } from './lending-sources';
import { headlessPowerSource } from '../core/lending/headless-sources';
import { createCommandRunner } from '../core/exec/process-runner';
import { startShell } from './shell';

const api: ElectronApi = electron;

// A terminal's Ctrl+C or a service manager's stop goes through the same quit path as
// the tray's Quit, so running turns are drained rather than cut off.
// electron-store's atomic writer (when-exit) hooks every signal at import and re-sends it
// after its clean-up, which would end the process before the drain: ours is the only hook.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.removeAllListeners(signal);
  process.once(signal, () => api.app.quit());
}

startShell({
  electron: api,
  // Settings are opened after ready (the shell calls this then), in the data folder.
  bootstrap: (options) =>
    bootstrapCore({
      ...options,
      settingsBackend: electronSettingsBackend(),
      // Called once the app is ready, as powerMonitor needs.
      lendingSources: electronLendingSources(electron.powerMonitor, headlessPowerSource(createCommandRunner())),
      desktop: {
        // Reviewed: the core lets only http(s) addresses on the control plane's own origin
        // through (commands.ts controlPlaneAddress); this checks the scheme once more.
        openExternal: (url) => {
          if (!/^https?:\/\//i.test(url)) return Promise.reject(new Error('only http(s) addresses are opened'));
          return electron.shell.openExternal(url); // eng-disable OPEN_EXTERNAL_JS_CHECK
        },
        openPath: (dir) => electron.shell.openPath(dir),
        saveFile: async (defaultName, data) => {
          const chosen = await electron.dialog.showSaveDialog({ defaultPath: defaultName, filters: [{ name: 'Zip', extensions: ['zip'] }] });
          if (chosen.canceled || !chosen.filePath) return null;
          await writeFile(chosen.filePath, data, { mode: 0o600 });
          return chosen.filePath;
        },
      },
    }),
  // Loaded only by a packaged build: it checks the publish feed of electron-builder.yml.
  updater: async () => (await import('electron-updater')).autoUpdater,
  env: process.env,
  argv: process.argv,
  platform: process.platform,
}).catch((error: unknown) => {
  // The core's logger may not exist yet; stderr is all there is.
  console.error('Runner Tray failed to start:', error instanceof Error ? (error.stack ?? error.message) : error);
  api.app.exit(1);
});
