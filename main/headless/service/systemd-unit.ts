import path from 'node:path';
import { stopTimeoutSeconds, type ServiceSpec } from './service-spec';

/** `~/.config/systemd/user/<unit>`: a user unit, managed with `systemctl --user`. */
export function systemdUnitName(name: string): string {
  return `${name}.service`;
}

export function systemdUnitPath(home: string, env: Record<string, string | undefined>, name: string): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'systemd', 'user', systemdUnitName(name));
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
export function systemdUnit(spec: ServiceSpec): string {
  const exec = [spec.entry.command, ...spec.entry.args, ...spec.hostArgs].map(systemdQuote).join(' ');
  return [
    '# Written by `runner-tray-headless service install`; `service uninstall` removes it.',
    '# A user service runs while its user is logged in. On a server, let it start at boot and',
    '# outlive your session with:  loginctl enable-linger $USER',
    '[Unit]',
    `Description=Runner Tray headless runner (${spec.name})`,
    'Wants=network-online.target',
    'After=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `WorkingDirectory=${systemdQuote(spec.entry.workingDirectory)}`,
    ...Object.entries(spec.env).map(([k, v]) => envLine(k, v)),
    `ExecStart=${exec}`,
    'Restart=on-failure',
    'RestartSec=5',
    // Exit 2 is a bad flag or variable: restarting cannot fix it.
    'RestartPreventExitStatus=2',
    'KillMode=mixed',
    'KillSignal=SIGTERM',
    `TimeoutStopSec=${stopTimeoutSeconds(spec.drainMs)}`,
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}
