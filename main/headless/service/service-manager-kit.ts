import type { ServicePort } from './service-port';
import type { ServiceSpec } from './service-spec';

export interface ServiceState {
  /** The manager's own state word ("active", "running", "not installed" …). */
  state: string;
  /** The runner's last status line from its log. */
  runnerStatus: string | null;
  installed: boolean;
  running: boolean;
}

/** One platform's service manager, every system call through the port. */
export interface ServiceManager {
  /** Where the definition lives (the unit, the plist, the task XML). */
  readonly definitionPath: string;
  /** Writes the definition and starts it; a failure removes what it wrote. */
  install(spec: ServiceSpec): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  status(): Promise<ServiceState>;
  /** The last 100 lines, then (only when `follow`) what comes until Ctrl-C. */
  logs(follow: boolean): Promise<number>;
  uninstall(): Promise<void>;
}

export class ServiceCommandError extends Error {}

export async function must(port: ServicePort, command: string, args: readonly string[]): Promise<string> {
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

export function tail(text: string | null, bytes = 256 * 1024): string {
  if (!text) return '';
  return text.length > bytes ? text.slice(-bytes) : text;
}
