import path from 'node:path';
import { nodeEnvFile, serviceSecretsPath } from './env-file';
import { launchdLabel, launchdLogPath, launchdPlist, launchdPlistPath } from './launchd-plist';
import { lastStatusLine, must, ServiceCommandError, tail, type ServiceManager, type ServiceState } from './service-manager-kit';
import type { ServicePort } from './service-port';
import type { ServiceSpec } from './service-spec';
import { systemdManager } from './systemd-manager';
import { windowsLogPath, windowsTaskName, windowsTaskXml, windowsTaskXmlPath } from './windows-task';

export const SERVICE_ACTIONS = ['install', 'start', 'stop', 'restart', 'status', 'logs', 'uninstall'] as const;
export type ServiceAction = (typeof SERVICE_ACTIONS)[number];

type Out = { write(text: string): unknown };

/** The secret-named variables to their 0600 file (or no file when there are none); the file, or null. */
function writeSecrets(port: ServicePort, file: string, spec: ServiceSpec): string | null {
  if (Object.keys(spec.secretEnv).length === 0) {
    port.removeFile(file);
    return null;
  }
  const text = nodeEnvFile(spec.secretEnv);
  port.mkdir(path.dirname(file));
  port.writeFile(file, text, { mode: 0o600 });
  return file;
}

export function launchdManager(port: ServicePort, name: string): ServiceManager {
  const label = launchdLabel(name);
  const file = launchdPlistPath(port.homeDir, name);
  const log = launchdLogPath(port.homeDir, name);
  const secrets = serviceSecretsPath('darwin', port.homeDir, {}, name);
  const domain = `gui/${port.uid ?? 0}`;
  const target = `${domain}/${label}`;
  return {
    definitionPath: file,
    async install(spec) {
      port.mkdir(path.dirname(file));
      port.mkdir(path.dirname(log));
      // Paths, names and a URL are nobody else's business: owner only. The secrets are in their own 0600 file.
      const secretsFile = writeSecrets(port, secrets, spec);
      port.writeFile(file, launchdPlist(spec, port.homeDir, secretsFile), { mode: 0o600 });
      // A reinstall replaces a loaded agent; "not loaded" is fine.
      await port.run('launchctl', ['bootout', target]);
      try {
        await must(port, 'launchctl', ['bootstrap', domain, file]);
      } catch (error) {
        port.removeFile(file);
        port.removeFile(secrets);
        throw error;
      }
    },
    start: async () => {
      await must(port, 'launchctl', ['kickstart', target]);
    },
    // SIGTERM lets the host drain; a clean exit is not restarted (KeepAlive.SuccessfulExit = false).
    stop: async () => {
      await must(port, 'launchctl', ['kill', 'SIGTERM', target]);
    },
    restart: async () => {
      await must(port, 'launchctl', ['kickstart', '-k', target]);
    },
    async status() {
      if (!port.exists(file)) return { state: 'not installed', runnerStatus: null, installed: false, running: false };
      const printed = await port.run('launchctl', ['print', target]);
      const state = printed.code === 0 ? (/^\s*state = (.+)$/m.exec(printed.stdout)?.[1]?.trim() ?? 'loaded') : 'not loaded';
      return { state, runnerStatus: lastStatusLine(tail(port.readFile(log))), installed: true, running: state === 'running' };
    },
    logs: (follow) => port.attach('tail', ['-n', '100', ...(follow ? ['-F'] : []), log]),
    async uninstall() {
      await port.run('launchctl', ['bootout', target]);
      port.removeFile(file);
      port.removeFile(secrets);
    },
  };
}

export function windowsManager(port: ServicePort, env: Record<string, string | undefined>, name: string): ServiceManager {
  const task = windowsTaskName(name);
  const xmlFile = windowsTaskXmlPath(port.homeDir, env, name);
  const log = windowsLogPath(port.homeDir, env, name);
  const secrets = serviceSecretsPath('win32', port.homeDir, env, name);
  const removeFiles = () => {
    port.removeFile(xmlFile);
    port.removeFile(secrets);
  };
  return {
    definitionPath: xmlFile,
    async install(spec) {
      port.mkdir(path.dirname(xmlFile));
      port.mkdir(path.dirname(log));
      const secretsFile = writeSecrets(port, secrets, spec);
      port.writeFile(xmlFile, windowsTaskXml(spec, port.homeDir, env, port.userName, secretsFile), { encoding: 'utf16le', mode: 0o600 });
      try {
        await must(port, 'schtasks', ['/Create', '/TN', task, '/XML', xmlFile, '/F']);
      } catch (error) {
        removeFiles();
        throw error;
      }
      try {
        await must(port, 'schtasks', ['/Run', '/TN', task]);
      } catch (error) {
        await port.run('schtasks', ['/Delete', '/TN', task, '/F']);
        removeFiles();
        throw error;
      }
    },
    start: async () => {
      await must(port, 'schtasks', ['/Run', '/TN', task]);
    },
    stop: async () => {
      await must(port, 'schtasks', ['/End', '/TN', task]);
    },
    async restart() {
      await port.run('schtasks', ['/End', '/TN', task]);
      await must(port, 'schtasks', ['/Run', '/TN', task]);
    },
    async status() {
      const q = await port.run('schtasks', ['/Query', '/TN', task, '/FO', 'LIST']);
      const state = q.code === 0 ? (/^Status:\s*(.+)$/m.exec(q.stdout)?.[1]?.trim() ?? 'registered') : 'not installed';
      return { state, runnerStatus: lastStatusLine(tail(port.readFile(log))), installed: q.code === 0, running: state === 'Running' };
    },
    logs: (follow) =>
      port.attach('powershell.exe', ['-NoProfile', '-Command', `Get-Content -LiteralPath '${log.replace(/'/g, "''")}' -Tail 100${follow ? ' -Wait' : ''}`]),
    async uninstall() {
      await port.run('schtasks', ['/End', '/TN', task]);
      await must(port, 'schtasks', ['/Delete', '/TN', task, '/F']);
      removeFiles();
    },
  };
}

export function managerFor(port: ServicePort, env: Record<string, string | undefined>, name: string, system = false): ServiceManager {
  if (system && port.platform !== 'linux') throw new ServiceCommandError('--system is for Linux (a systemd system unit) only.');
  if (port.platform === 'linux') return systemdManager(port, env, name, system ? 'system' : 'user');
  if (port.platform === 'darwin') return launchdManager(port, name);
  if (port.platform === 'win32') return windowsManager(port, env, name);
  throw new ServiceCommandError(`No service manager for ${port.platform}: run the headless host under your own supervisor.`);
}

/** What each platform tells the operator after install. */
export function installNotes(port: ServicePort, manager: ServiceManager, name: string, system = false): string[] {
  const notes = [`Installed ${name}: ${manager.definitionPath}`];
  if (port.platform === 'linux' && !system) {
    notes.push(
      'This is a systemd user service: it runs while you are logged in. On a server, run',
      `  loginctl enable-linger ${port.userName}`,
      'so it starts at boot and keeps running after you log out.',
    );
  }
  if (port.platform === 'win32') notes.push('The task starts at logon. `service stop` ends it without a drain; running turns are reported at the next start.');
  notes.push(
    `Pairing: run \`runner-tray-headless service logs${system ? ' --system' : ''} --name ${name}\` to see the code, or install with -- --user-code <code>.`,
  );
  return notes;
}

/** `status`'s exit code, as LSB init scripts have it: 0 running, 3 installed but not running, 4 not installed. */
export const STATUS_NOT_RUNNING = 3;
export const STATUS_NOT_INSTALLED = 4;

export function printStatus(out: Out, name: string, status: ServiceState): number {
  out.write(`${name}: ${status.state}\n`);
  if (!status.installed) {
    out.write(`Not installed: runner-tray-headless service install --name ${name}\n`);
    return STATUS_NOT_INSTALLED;
  }
  out.write(status.runnerStatus ? `Status: ${status.runnerStatus}\n` : 'Status: (no status line in the log yet)\n');
  return status.running ? 0 : STATUS_NOT_RUNNING;
}
