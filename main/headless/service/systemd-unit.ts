import path from 'node:path';
import { EXIT_CONFIG, EXIT_USAGE } from '../exit-codes';
import { stopTimeoutSeconds, type ServiceSpec } from './service-spec';

/** A user unit (`systemctl --user`, the default) or a system unit (`--system`, root only). */
export type SystemdScope = 'user' | 'system';

export function systemdUnitName(name: string): string {
  return `${name}.service`;
}

/** `~/.config/systemd/user/<unit>` for a user unit, `/etc/systemd/system/<unit>` for a system one. */
export function systemdUnitPath(home: string, env: Record<string, string | undefined>, name: string, scope: SystemdScope = 'user'): string {
  if (scope === 'system') return path.posix.join('/etc/systemd/system', systemdUnitName(name));
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'systemd', 'user', systemdUnitName(name));
}

/** The 0600 file the unit names for the secret-named variables (`EnvironmentFile=`). */
export function systemdSecretsPath(home: string, env: Record<string, string | undefined>, name: string, scope: SystemdScope = 'user'): string {
  if (scope === 'system') return path.posix.join('/etc/runner-tray', `${name}.env`);
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'runner-tray', `${name}.env`);
}

/** An EnvironmentFile: one `KEY="value"` a line, `\`, `"` and `$` escaped (systemd expands none of it). */
export function systemdEnvironmentFile(vars: Record<string, string>): string {
  return Object.entries(vars)
    .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\$/g, '\\$').replace(/\n/g, '\\n')}"\n`)
    .join('');
}

export interface SystemdUnitOptions {
  scope?: SystemdScope;
  /** A system unit runs as this user (the one who ran sudo) rather than root. */
  runAs?: string | null;
  /** Where the secret-named variables are, when there are any. */
  secretsFile?: string | null;
}

/** One ExecStart word: quoted when it needs to be; `%` (specifiers) and `$` (variables) are escaped. */
export function systemdQuote(word: string): string {
  const escaped = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(escaped) && escaped.length > 0) return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Environment= does specifiers (`%`) but no `$` expansion, so only `%`, `\` and `"` are escaped. */
function envLine(key: string, value: string): string {
  const assignment = `${key}=${value}`.replace(/%/g, '%%');
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(assignment)) return `Environment=${assignment}`;
  return `Environment="${assignment.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * The unit. `Restart=on-failure` (a crash restarts it; a clean stop does not), SIGTERM to
 * the host only (`KillMode=mixed`) so the running turns drain instead of being killed with
 * it, and a stop timeout of the drain limit plus time to report what the drain canceled.
 */
export function systemdUnit(spec: ServiceSpec, options: SystemdUnitOptions = {}): string {
  const exec = [spec.entry.command, ...spec.entry.args, ...spec.hostArgs].map(systemdQuote).join(' ');
  const system = options.scope === 'system';
  return [
    '# Written by `runner-tray-headless service install`; `service uninstall` removes it.',
    ...(system
      ? ['# A system unit: it starts at boot.']
      : [
          '# A user service runs while its user is logged in. On a server, let it start at boot and',
          '# outlive your session with:  loginctl enable-linger $USER',
        ]),
    '[Unit]',
    `Description=Runner Tray headless runner (${spec.name})`,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    ...(system && options.runAs ? [`User=${systemdQuote(options.runAs)}`] : []),
    `WorkingDirectory=${systemdQuote(spec.entry.workingDirectory)}`,
    ...Object.entries(spec.env).map(([k, v]) => envLine(k, v)),
    ...(options.secretsFile ? [`EnvironmentFile=${systemdQuote(options.secretsFile)}`] : []),
    `ExecStart=${exec}`,
    'Restart=on-failure',
    'RestartSec=5',
    // A bad flag or variable, or a port another program holds: restarting cannot fix either.
    `RestartPreventExitStatus=${EXIT_USAGE} ${EXIT_CONFIG}`,
    'KillMode=mixed',
    'KillSignal=SIGTERM',
    `TimeoutStopSec=${stopTimeoutSeconds(spec.drainMs)}`,
    '',
    '[Install]',
    system ? 'WantedBy=multi-user.target' : 'WantedBy=default.target',
    '',
  ].join('\n');
}
