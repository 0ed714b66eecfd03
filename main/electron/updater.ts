// The packaged desktop app's update check: electron-updater's autoUpdater against the
// publish feed in electron-builder.yml, behind a small interface so it is tested with a
// fake. It checks at start and daily, downloads in the background, and installs on quit
// (autoInstallOnAppQuit): never a restart while turns run. The updateCheck setting turns it off.
import type { Clock, Logger, TimerHandle } from '../core/base/ports';
import type { UpdateNotice } from '../../shared/updates';

/** The slice of electron-updater's AppUpdater the shell uses. */
export interface UpdaterApi {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  checkForUpdates(): Promise<unknown>;
  on(event: 'update-downloaded', listener: (info: { version: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export const DESKTOP_CHECK_PERIOD_MS = 24 * 3_600_000;

export interface DesktopUpdaterDeps {
  updater: UpdaterApi;
  /** Only a packaged build has a feed to update from (app.isPackaged). */
  isPackaged: boolean;
  /** The updateCheck setting, read before every check. */
  enabled(): Promise<boolean>;
  clock: Clock;
  log: Logger;
  /** A newer version is downloaded and installs on quit. */
  onAvailable(notice: UpdateNotice): void;
}

export function desktopUpdateLine(version: string): string {
  return `Update available: ${version} — restart to install`;
}

export class DesktopUpdater {
  private timer: TimerHandle | null = null;
  private stopped = false;
  private told: string | null = null;

  constructor(private readonly deps: DesktopUpdaterDeps) {}

  start(): void {
    if (!this.deps.isPackaged) return;
    const { updater } = this.deps;
    updater.autoDownload = true;
    updater.autoInstallOnAppQuit = true;
    updater.on('update-downloaded', (info) => {
      if (this.told === info.version) return;
      this.told = info.version;
      this.deps.onAvailable({ version: info.version, line: desktopUpdateLine(info.version) });
    });
    // Network trouble is no news for the operator: a debug line.
    updater.on('error', (error) => this.deps.log.debug('the update check failed', { error: error.message }));
    void this.check();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private async check(): Promise<void> {
    this.timer = null;
    if (this.stopped) return;
    try {
      if (await this.deps.enabled()) await this.deps.updater.checkForUpdates();
    } catch (error) {
      this.deps.log.debug('the update check failed', { error: String(error) });
    }
    if (!this.stopped) this.timer = this.deps.clock.setTimeout(() => void this.check(), DESKTOP_CHECK_PERIOD_MS);
  }
}
