import path from 'node:path';
import { launchdLabel, launchdLogPath, launchdPlist, launchdPlistPath } from './launchd-plist';
import type { ServicePort } from './service-port';
import type { ServiceSpec } from './service-spec';
import { systemdUnit, systemdUnitName, systemdUnitPath } from './systemd-unit';
import { windowsLogPath, windowsTaskName, windowsTaskXml, windowsTaskXmlPath } from './windows-task';

export const SERVICE_ACTIONS = ['install', 'start', 'stop', 'restart', 'status', 'logs', 'uninstall'] as const;
export type ServiceAction = (typeof SERVICE_ACTIONS)[number];

type Out = { write(text: string): unknown };

/** One platform's service manager, every system call through the port. */
export interface ServiceManager {
  /** Where the definition lives (the unit, the plist, the task XML). */
  readonly definitionPath: string;
  install(spec: ServiceSpec): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** The manager's own state word, and the runner's last status line from its log. */
  status(): Promise<{ state: string; runnerStatus: string | null }>;
  logs(): Promise<number>;
  uninstall(): Promise<void>;
}

export class ServiceCommandError extends Error {}

async function must(port: ServicePort, command: string, args: readonly string[]): Promise<string> {
  const r = await port.run(command, args);
  if (r.code !== 0) {
    const said = (r.stderr || r.stdout).trim().split('\n')[0] ?? '';
    throw new ServiceCommandError(`${command} ${args.join(' ')} failed (${r.code})${said ? `: ${said}` : ''}`);
  }
  return r.stdout;
}

/** The last `Status: …` line the host printed (it prints one per change). */
export function lastStatusLine(log: string): string | null {
  const lines = log.split(/\r?\n/).filter((l) => l.startsWith('Status: '));
  return lines.length > 0 ? (lines[lines.length - 1] as string).slice('Status: '.length) : null;
}

function tail(text: string | null, bytes = 256 * 1024): string {
  if (!text) return '';
  return text.length > bytes ? text.slice(-bytes) : text;
}

export function systemdManager(port: ServicePort, env: Record<string, string | undefined>, name: string): ServiceManager {
  const unit = systemdUnitName(name);
  const file = systemdUnitPath(port.homeDir, env, name);
  const ctl = (...args: string[]) => must(port, 'systemctl', ['--user', ...args]);
  return {
    definitionPath: file,
    async install(spec) {
      port.mkdir(path.dirname(file));
      port.writeFile(file, systemdUnit(spec));
      await ctl('daemon-reload');
      await ctl('enable', '--now', unit);
    },
    start: async () => {
      await ctl('start', unit);
    },
    stop: async () => {
      await ctl('stop', unit);
    },
    restart: async () => {
      await ctl('restart', unit);
    },
    async status() {
      const active = await port.run('systemctl', ['--user', 'is-active', unit]);
      const journal = await port.run('journalctl', ['--user', '-u', unit, '-n', '500', '--no-pager', '-o', 'cat']);
      return { state: active.stdout.trim() || 'unknown', runnerStatus: lastStatusLine(journal.stdout) };
    },
    logs: () => port.attach('journalctl', ['--user', '-u', unit, '-n', '100', '-f', '-o', 'cat']),
    async uninstall() {
      await port.run('systemctl', ['--user', 'disable', '--now', unit]);
      port.removeFile(file);
      await ctl('daemon-reload');
    },
  };
}

export function launchdManager(port: ServicePort, name: string): ServiceManager {
  const label = launchdLabel(name);
  const file = launchdPlistPath(port.homeDir, name);
  const log = launchdLogPath(port.homeDir, name);
  const domain = `gui/${port.uid ?? 0}`;
  const target = `${domain}/${label}`;
  return {
    definitionPath: file,
    async install(spec) {
      port.mkdir(path.dirname(file));
      port.mkdir(path.dirname(log));
      port.writeFile(file, launchdPlist(spec, port.homeDir));
      // A reinstall replaces a loaded agent; "not loaded" is fine.
      await port.run('launchctl', ['bootout', target]);
      await must(port, 'launchctl', ['bootstrap', domain, file]);
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
      const printed = await port.run('launchctl', ['print', target]);
      const state = printed.code === 0 ? (/^\s*state = (.+)$/m.exec(printed.stdout)?.[1]?.trim() ?? 'loaded') : 'not loaded';
      return { state, runnerStatus: lastStatusLine(tail(port.readFile(log))) };
    },
    logs: () => port.attach('tail', ['-n', '100', '-F', log]),
    async uninstall() {
      await port.run('launchctl', ['bootout', target]);
      port.removeFile(file);
    },
  };
}

export function windowsManager(port: ServicePort, env: Record<string, string | undefined>, name: string): ServiceManager {
  const task = windowsTaskName(name);
  const xmlFile = windowsTaskXmlPath(port.homeDir, env, name);
  const log = windowsLogPath(port.homeDir, env, name);
  return {
    definitionPath: xmlFile,
    async install(spec) {
      port.mkdir(path.dirname(xmlFile));
      port.mkdir(path.dirname(log));
      port.writeFile(xmlFile, windowsTaskXml(spec, port.homeDir, env, port.userName), 'utf16le');
      await must(port, 'schtasks', ['/Create', '/TN', task, '/XML', xmlFile, '/F']);
      await must(port, 'schtasks', ['/Run', '/TN', task]);
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
      return { state, runnerStatus: lastStatusLine(tail(port.readFile(log))) };
    },
    logs: () => port.attach('powershell.exe', ['-NoProfile', '-Command', `Get-Content -LiteralPath '${log.replace(/'/g, "''")}' -Tail 100 -Wait`]),
    async uninstall() {
      await port.run('schtasks', ['/End', '/TN', task]);
      await must(port, 'schtasks', ['/Delete', '/TN', task, '/F']);
      port.removeFile(xmlFile);
    },
  };
}

export function managerFor(port: ServicePort, env: Record<string, string | undefined>, name: string): ServiceManager {
  if (port.platform === 'linux') return systemdManager(port, env, name);
  if (port.platform === 'darwin') return launchdManager(port, name);
  if (port.platform === 'win32') return windowsManager(port, env, name);
  throw new ServiceCommandError(`No service manager for ${port.platform}: run the headless host under your own supervisor.`);
}

/** What each platform tells the operator after install. */
export function installNotes(port: ServicePort, manager: ServiceManager, name: string): string[] {
  const notes = [`Installed ${name}: ${manager.definitionPath}`];
  if (port.platform === 'linux') {
    notes.push(
      'This is a systemd user service: it runs while you are logged in. On a server, run',
      `  loginctl enable-linger ${port.userName}`,
      'so it starts at boot and keeps running after you log out.',
    );
  }
  if (port.platform === 'win32') notes.push('The task starts at logon. `service stop` ends it without a drain; running turns are reported at the next start.');
  notes.push(`Pairing: run \`runner-tray-headless service logs --name ${name}\` to see the code, or install with -- --user-code <code>.`);
  return notes;
}

export function printStatus(out: Out, name: string, status: { state: string; runnerStatus: string | null }): void {
  out.write(`${name}: ${status.state}\n`);
  out.write(status.runnerStatus ? `Status: ${status.runnerStatus}\n` : 'Status: (no status line in the log yet)\n');
}
