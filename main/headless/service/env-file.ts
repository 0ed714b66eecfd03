import path from 'node:path';
import { ServiceCommandError } from './service-manager-kit';

/*
 * The secret-named RUNNER_* values of a launchd agent or a Task Scheduler task. Neither
 * definition has a separate place for secrets (systemd has EnvironmentFile=), so they go to a
 * 0600 file beside it and the service starts `node --env-file=<file> <bundle>`: node reads the
 * file into the host's environment before the host's first line runs.
 */

/** The file a service's secrets are in (macOS: Application Support; Windows: %LOCALAPPDATA%). */
export function serviceSecretsPath(platform: 'darwin' | 'win32', home: string, env: Record<string, string | undefined>, name: string): string {
  if (platform === 'win32') return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'Runner Tray', `${name}.env`);
  return path.join(home, 'Library', 'Application Support', 'Runner Tray', 'service', `${name}.env`);
}

/**
 * Node's `--env-file` format: one `KEY='value'` a line. Node has no escapes inside quotes (a
 * value ends at the next quote of its kind, and `\n` inside double quotes becomes a newline),
 * so each value gets a quote it does not contain; one it cannot be written with is refused.
 */
export function nodeEnvFile(vars: Record<string, string>): string {
  return Object.entries(vars)
    .map(([key, value]) => {
      const quote = ["'", '`', '"'].find((q) => !value.includes(q) && !(q === '"' && value.includes('\\n')));
      if (quote === undefined || /[\r\n]/.test(value)) {
        throw new ServiceCommandError(`${key} cannot be written to the service's env file (a line break, or every kind of quote, is in its value).`);
      }
      return `${key}=${quote}${value}${quote}\n`;
    })
    .join('');
}

/** The node flag that loads the file, put before the bundle. */
export function envFileFlag(file: string): string {
  return `--env-file=${file}`;
}
