import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { HostEvent } from '../../shared/contract';
import type { Host } from '../core/host';
import type { Logger } from '../core/base/ports';
import type { AppApi } from './electron-api';
import { errorText } from '../../shared/errors';

/** Passed by the login item so the app starts in the tray (shell.ts reads it). */
const HIDDEN = '--hidden';
export const AUTOSTART_FILE_NAME = 'runner-tray.desktop';

export interface LaunchAtLoginFs {
  mkdir(dir: string): Promise<unknown>;
  writeFile(file: string, text: string): Promise<void>;
  rm(file: string): Promise<void>;
}

const nodeFs: LaunchAtLoginFs = {
  mkdir: (dir) => mkdir(dir, { recursive: true }),
  writeFile: (file, text) => writeFile(file, text, { mode: 0o644 }),
  rm: (file) => rm(file, { force: true }),
};

export interface LaunchAtLoginOptions {
  app: Pick<AppApi, 'setLoginItemSettings' | 'isPackaged'>;
  platform: string;
  env: Record<string, string | undefined>;
  homedir: string;
  /** The app's executable (process.execPath in the packaged app). */
  execPath: string;
  log?: Logger;
  fs?: LaunchAtLoginFs;
}

export type LaunchAtLoginResult = { applied: true; where: string } | { applied: false; reason: string };

/** `$XDG_CONFIG_HOME/autostart/runner-tray.desktop`, else under ~/.config. */
export function autostartFile(env: Record<string, string | undefined>, homedir: string): string {
  const config = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(homedir, '.config');
  return path.join(config, 'autostart', AUTOSTART_FILE_NAME);
}

/**
 * One argument of an Exec key, per the Desktop Entry spec: quoted when it holds a
 * reserved character, with `"`, `` ` ``, `$` and `\` escaped inside the quotes; then,
 * because Exec is a string value, every backslash is escaped once more; `%` is doubled
 * so it is not read as a field code.
 */
export function quoteExecArg(arg: string): string {
  const percent = arg.replace(/%/g, '%%');
  if (!/[\s"'\\><~|&;$*?#()`]/.test(percent)) return percent;
  const quoted = `"${percent.replace(/(["`$\\])/g, '\\$1')}"`;
  return quoted.replace(/\\/g, '\\\\');
}

export function desktopEntry(command: string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Runner Tray',
    'Comment=Runs AI factory turns for your team on this machine',
    `Exec=${command.map(quoteExecArg).join(' ')}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/**
 * Starts the app at login, or stops doing so. macOS and Windows through Electron's login
 * items; Linux through an XDG autostart entry that starts the AppImage file itself when
 * the app runs from one (`$APPIMAGE`: the executable path changes on every mount), else
 * the installed executable. In development (not packaged) nothing is registered: the
 * entry would start a bare Electron without this app.
 */
export async function applyLaunchAtLogin(enabled: boolean, options: LaunchAtLoginOptions): Promise<LaunchAtLoginResult> {
  if (!options.app.isPackaged) return { applied: false, reason: 'not a packaged app' };
  if (options.platform === 'darwin' || options.platform === 'win32') {
    options.app.setLoginItemSettings(
      options.platform === 'win32' ? { openAtLogin: enabled, path: options.execPath, args: [HIDDEN] } : { openAtLogin: enabled },
    );
    return { applied: true, where: 'login items' };
  }
  const fs = options.fs ?? nodeFs;
  const file = autostartFile(options.env, options.homedir);
  if (enabled) {
    const program = options.env.APPIMAGE?.trim() || options.execPath;
    await fs.mkdir(path.dirname(file));
    await fs.writeFile(file, desktopEntry([program, HIDDEN]));
  } else {
    await fs.rm(file);
  }
  return { applied: true, where: file };
}

/**
 * Keeps the login item in step with the `launchAtLogin` setting: once at start, then on
 * every `settings:changed` event, whoever changed it. Applies only real changes.
 */
export class LaunchAtLogin {
  private applied: boolean | null = null;
  private unsubscribe: (() => void) | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: LaunchAtLoginOptions) {}

  start(host: Pick<Host, 'invoke' | 'subscribe'>): void {
    if (this.unsubscribe) return;
    this.unsubscribe = host.subscribe((batch: HostEvent[]) => {
      for (const event of batch) if (event.event === 'settings:changed') this.want(event.payload.settings.launchAtLogin);
    });
    void host.invoke('settings:get', {}).then((result) => {
      if (result.ok) this.want((result.value as { settings: { launchAtLogin: boolean } }).settings.launchAtLogin);
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** Resolves when every change asked for so far has been applied (for tests). */
  settled(): Promise<unknown> {
    return this.queue;
  }

  private want(enabled: boolean): void {
    // One change at a time, in order: a quick on-off-on must end on.
    this.queue = this.queue.then(async () => {
      if (this.applied === enabled) return;
      try {
        const result = await applyLaunchAtLogin(enabled, this.options);
        this.applied = enabled;
        this.options.log?.info(result.applied ? 'launch at login updated' : 'launch at login left alone', {
          enabled,
          ...(result.applied ? { where: result.where } : { reason: result.reason }),
        });
      } catch (error) {
        this.options.log?.warn('launch at login could not be updated', { enabled, error: errorText(error) });
      }
    });
  }
}
