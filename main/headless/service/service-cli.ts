import { errorText } from '../../../shared/errors';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { resolveOverrides } from '../../core/settings/overrides';
import { headlessEntry } from '../entry-point';
import { nodeServicePort } from './node-service-port';
import { installNotes, managerFor, printStatus, SERVICE_ACTIONS, type ServiceAction } from './service-manager';
import { ServiceCommandError, type ServiceManager } from './service-manager-kit';
import type { ServicePort } from './service-port';
import { DEFAULT_SERVICE_NAME, SERVICE_NAME_PATTERN, serviceEnvironment } from './service-spec';

type Out = { write(text: string): unknown };

export const SERVICE_USAGE =
  'Usage: runner-tray-headless service install|start|stop|restart|status|logs|uninstall [--name <name>] [--system] [--follow] [-- <host flags>]\n' +
  '  install writes a systemd user unit (Linux), a launchd agent (macOS) or a Task Scheduler task (Windows) and starts it;\n' +
  '  --system (Linux, as root): a system unit in /etc/systemd/system instead of a user unit;\n' +
  '  status exits 0 running, 3 installed but not running, 4 not installed; logs prints the last 100 lines (--follow: and then follows);\n' +
  '  flags after -- go to the runner, e.g. -- --execute --state-file /var/lib/rost/runner.json';

const DrainSchema = z.coerce
  .number()
  .int()
  .min(0)
  .max(24 * 3_600_000)
  .default(5 * 60_000);
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export interface ServiceCliDeps {
  env: Record<string, string | undefined>;
  out: Out;
  err: Out;
  port?: ServicePort;
  /** The checkout the service runs from (default: this one) and the node binary (default: this one). */
  repoRoot?: string;
  nodePath?: string;
}

export type ParsedServiceArgs =
  { ok: true; action: ServiceAction; name: string; hostArgs: string[]; system: boolean; follow: boolean } | { ok: false; message: string };

export function parseServiceArgs(argv: readonly string[]): ParsedServiceArgs {
  const [action, ...rest] = argv;
  if (!action || !(SERVICE_ACTIONS as readonly string[]).includes(action)) {
    return { ok: false, message: action ? `Unknown service command: ${action.slice(0, 40)}.` : 'Which service command?' };
  }
  let name = DEFAULT_SERVICE_NAME;
  let system = false;
  let follow = false;
  const hostArgs: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i] as string;
    if (token === '--') {
      if (action !== 'install') return { ok: false, message: 'Host flags after -- are for install only.' };
      hostArgs.push(...rest.slice(i + 1));
      break;
    }
    if (token === '--name' || token.startsWith('--name=')) {
      const value = token === '--name' ? rest[++i] : token.slice('--name='.length);
      if (value === undefined || !SERVICE_NAME_PATTERN.test(value)) {
        return { ok: false, message: '--name must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.' };
      }
      name = value;
      continue;
    }
    if (token === '--system') {
      system = true;
      continue;
    }
    if ((token === '--follow' || token === '-f') && action === 'logs') {
      follow = true;
      continue;
    }
    return { ok: false, message: `Unknown option for service ${action}: ${token.slice(0, 40)}.` };
  }
  return { ok: true, action: action as ServiceAction, name, hostArgs, system, follow };
}

/** `runner-tray-headless service …`: manages this host as a service of the platform. */
export async function runServiceCommand(argv: readonly string[], deps: ServiceCliDeps): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
    deps.out.write(`${SERVICE_USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const parsed = parseServiceArgs(argv);
  if (!parsed.ok) {
    deps.err.write(`runner-tray service: ${parsed.message}\n${SERVICE_USAGE}\n`);
    return 2;
  }
  const drain = DrainSchema.safeParse(deps.env.RUNNER_TRAY_QUIT_DRAIN_MS || undefined);
  if (!drain.success) {
    deps.err.write('runner-tray service: RUNNER_TRAY_QUIT_DRAIN_MS must be an integer number of milliseconds (0 to 86400000).\n');
    return 2;
  }
  const port = deps.port ?? nodeServicePort();
  try {
    const manager = managerFor(port, deps.env, parsed.name, parsed.system);
    switch (parsed.action) {
      case 'install':
        return await install(parsed, manager, port, deps, drain.data);
      case 'start':
      case 'stop':
      case 'restart':
        await manager[parsed.action]();
        deps.out.write(`${parsed.name}: ${parsed.action === 'stop' ? 'stopped' : parsed.action === 'start' ? 'started' : 'restarted'}.\n`);
        return 0;
      case 'status':
        return printStatus(deps.out, parsed.name, await manager.status());
      case 'logs':
        return await manager.logs(parsed.follow);
      case 'uninstall':
        await manager.uninstall();
        deps.out.write(`${parsed.name}: uninstalled (${manager.definitionPath} removed). The data folder and pairing are kept.\n`);
        return 0;
    }
  } catch (error) {
    // The service's own explanations may take several lines (what is missing, what to do); anything else, one.
    deps.err.write(`runner-tray service: ${error instanceof ServiceCommandError ? error.message : errorText(error)}\n`);
    return 1;
  }
}

async function install(
  parsed: Extract<ParsedServiceArgs, { ok: true }>,
  manager: ServiceManager,
  port: ServicePort,
  deps: ServiceCliDeps,
  drainMs: number,
): Promise<number> {
  // A unit that cannot start would only restart and fail: check its flags and variables now.
  const checked = resolveOverrides(deps.env, parsed.hostArgs);
  if (!checked.ok) {
    deps.err.write(`runner-tray service: not installed: ${checked.error.message}\n`);
    return 2;
  }
  if (checked.once) {
    deps.err.write('runner-tray service: not installed: --once exits after one heartbeat; a service runs until stopped.\n');
    return 2;
  }
  const root = deps.repoRoot ?? repoRoot;
  const entry = headlessEntry(path.resolve(root), deps.nodePath ?? process.execPath);
  if (!(deps.port ? port.exists : existsSync)(entry.args[0]!)) {
    deps.err.write(`runner-tray service: not installed: ${entry.args[0]} is missing; build it first with npm run build:headless.\n`);
    return 1;
  }
  const environment = serviceEnvironment(deps.env, drainMs);
  await manager.install({ name: parsed.name, entry, hostArgs: parsed.hostArgs, ...environment, drainMs });
  for (const line of installNotes(port, manager, parsed.name, parsed.system)) deps.out.write(`${line}\n`);
  return 0;
}
