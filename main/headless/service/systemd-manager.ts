import path from 'node:path';
import { must, lastStatusLine, ServiceCommandError, type ServiceManager } from './service-manager-kit';
import type { ServicePort } from './service-port';
import { systemdEnvironmentFile, systemdSecretsPath, systemdUnit, systemdUnitName, systemdUnitPath, type SystemdScope } from './systemd-unit';

type Env = Record<string, string | undefined>;

/** States in which the unit's process is there (a stop drains while "deactivating"). */
const RUNNING = new Set(['active', 'reloading', 'deactivating']);

/** Why `systemctl --user` cannot work here, in the operator's terms, and what to do instead. */
export function noUserManagerMessage(port: ServicePort, env: Env, said: string): string {
  const missing = [!env.XDG_RUNTIME_DIR && 'XDG_RUNTIME_DIR is not set', !env.DBUS_SESSION_BUS_ADDRESS && 'DBUS_SESSION_BUS_ADDRESS is not set']
    .filter(Boolean)
    .join(', ');
  const lines = [
    `there is no systemd user manager for ${port.userName} in this session${missing ? ` (${missing})` : ''}${said ? `; systemctl said: ${said}` : ''}.`,
    'This happens as root on a server, in a container, or over SSH for a user without lingering. Either:',
    port.uid === 0
      ? '  - install a system unit instead:  runner-tray-headless service install --system [-- <host flags>]'
      : '  - install a system unit instead (as root):  sudo runner-tray-headless service install --system [-- <host flags>]',
    `  - or let ${port.userName} have a user manager:  sudo loginctl enable-linger ${port.userName}  then log in again`,
    '  - in a container, run the host as the container command (deploy/Dockerfile) rather than as a service.',
  ];
  return lines.join('\n');
}

/** A systemd unit: a user unit (`systemctl --user`) unless `system` (root, /etc/systemd/system). */
export function systemdManager(port: ServicePort, env: Env, name: string, scope: SystemdScope = 'user'): ServiceManager {
  const unit = systemdUnitName(name);
  const file = systemdUnitPath(port.homeDir, env, name, scope);
  const secrets = systemdSecretsPath(port.homeDir, env, name, scope);
  const scoped = scope === 'user' ? ['--user'] : [];
  const ctl = (...args: string[]) => must(port, 'systemctl', [...scoped, ...args]);
  const reachable = async (): Promise<void> => {
    if (scope === 'system') {
      if (port.uid !== 0) throw new ServiceCommandError('--system writes /etc/systemd/system and needs root: run it with sudo.');
      return;
    }
    const probe = await port.run('systemctl', ['--user', 'show-environment']);
    if (probe.code !== 0) throw new ServiceCommandError(noUserManagerMessage(port, env, (probe.stderr || probe.stdout).trim().split('\n')[0] ?? ''));
  };
  const removeFiles = async (): Promise<void> => {
    port.removeFile(file);
    port.removeFile(secrets);
    await port.run('systemctl', [...scoped, 'daemon-reload']);
  };
  return {
    definitionPath: file,
    async install(spec) {
      await reachable();
      const hasSecrets = Object.keys(spec.secretEnv).length > 0;
      port.mkdir(path.dirname(file));
      // Environment values (paths, names, a URL) are nobody else's business: the unit is 0600.
      port.writeFile(file, systemdUnit(spec, { scope, runAs: scope === 'system' ? (env.SUDO_USER ?? null) : null, secretsFile: hasSecrets ? secrets : null }), {
        mode: 0o600,
      });
      if (hasSecrets) {
        port.mkdir(path.dirname(secrets));
        port.writeFile(secrets, systemdEnvironmentFile(spec.secretEnv), { mode: 0o600 });
      } else {
        port.removeFile(secrets);
      }
      try {
        await ctl('daemon-reload');
        await ctl('enable', '--now', unit);
      } catch (error) {
        // A unit systemd would not take leaves nothing behind.
        await port.run('systemctl', [...scoped, 'disable', unit]);
        await removeFiles();
        throw error;
      }
    },
    start: async () => {
      await reachable();
      await ctl('start', unit);
    },
    stop: async () => {
      await reachable();
      await ctl('stop', unit);
    },
    restart: async () => {
      await reachable();
      await ctl('restart', unit);
    },
    async status() {
      if (!port.exists(file)) return { state: 'not installed', runnerStatus: null, installed: false, running: false };
      await reachable();
      const active = await port.run('systemctl', [...scoped, 'is-active', unit]);
      const journal = await port.run('journalctl', [...scoped, '-u', unit, '-n', '500', '--no-pager', '-o', 'cat']);
      const state = active.stdout.trim() || 'unknown';
      return { state, runnerStatus: lastStatusLine(journal.stdout), installed: true, running: RUNNING.has(state) };
    },
    logs: (follow) => port.attach('journalctl', [...scoped, '-u', unit, '-n', '100', '-o', 'cat', ...(follow ? ['-f'] : ['--no-pager'])]),
    async uninstall() {
      await reachable();
      await port.run('systemctl', [...scoped, 'disable', '--now', unit]);
      port.removeFile(file);
      port.removeFile(secrets);
      await ctl('daemon-reload');
    },
  };
}
