import { errorText } from '../../../shared/errors';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { resolveOverrides } from '../../core/settings/overrides';
import { headlessEntry } from '../entry-point';
import { resolveSechroomPlane } from '../sechroom-plane';
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
  '  flags after -- go to the runner, e.g. -- --execute --state-file /var/lib/rost/runner.json;\n' +
  '  a Sechroom executor instance (`sechroom executor install` + `run`): run it from the checkout with -- --plane sechroom --control-plane <url> --tenant <id> [executor run flags];\n' +
  '  its service is named runner-tray-<instance key> unless --name says otherwise, and runs in that checkout (its .sechroom/executor.json)';

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
  /** Where install was run (a Sechroom instance's checkout; default: this process's). */
  cwd?: string;
}

export type ParsedServiceArgs =
  { ok: true; action: ServiceAction; name: string; named: boolean; hostArgs: string[]; system: boolean; follow: boolean } | { ok: false; message: string };

export function parseServiceArgs(argv: readonly string[]): ParsedServiceArgs {
  const [action, ...rest] = argv;
  if (!action || !(SERVICE_ACTIONS as readonly string[]).includes(action)) {
    return { ok: false, message: action ? `Unknown service command: ${action.slice(0, 40)}.` : 'Which service command?' };
  }
  let name = DEFAULT_SERVICE_NAME;
  let named = false;
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
      named = true;
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
  return { ok: true, action: action as ServiceAction, name, named, hostArgs, system, follow };
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
    if (parsed.action === 'install') {
      const checked = await checkHostArgs(parsed, deps);
      if (!checked.ok) return checked.code;
      const named = { ...parsed, name: checked.name };
      return await install(named, managerFor(port, deps.env, named.name, parsed.system), port, deps, drain.data, checked);
    }
    const manager = managerFor(port, deps.env, parsed.name, parsed.system);
    switch (parsed.action) {
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

type HostArgsCheck = { ok: true; name: string; sechroom: boolean; checkout: string | null } | { ok: false; code: number };

/**
 * A unit that cannot start would only restart and fail: its flags and variables are checked
 * now, the Sechroom plane's as `executor run` checks them (its advertisement read from the
 * checkout install runs in), then the host's.
 */
async function checkHostArgs(parsed: Extract<ParsedServiceArgs, { ok: true }>, deps: ServiceCliDeps): Promise<HostArgsCheck> {
  const refuse = (message: string): HostArgsCheck => {
    deps.err.write(`runner-tray service: not installed: ${message}\n`);
    return { ok: false, code: 2 };
  };
  const cwd = path.resolve(deps.cwd ?? process.cwd());
  const plane = await resolveSechroomPlane(deps.env, parsed.hostArgs, cwd);
  if (!plane.ok) return refuse(plane.message);
  const checked = resolveOverrides(deps.env, plane.rest);
  if (!checked.ok) return refuse(checked.error.message);
  if (checked.once) return refuse('--once exits after one heartbeat; a service runs until stopped.');
  const single = plane.plane === 'sechroom' && plane.profiles.length === 1 ? plane.profiles[0]!.id : null;
  // One service per executor instance (the seed installs one per checkout), unless --name says otherwise.
  const name = parsed.named || !single ? parsed.name : `${DEFAULT_SERVICE_NAME}-${single}`.slice(0, 64);
  return { ok: true, name, sechroom: plane.profiles.length > 0, checkout: plane.plane === 'sechroom' ? cwd : null };
}

async function install(
  parsed: Extract<ParsedServiceArgs, { ok: true }>,
  manager: ServiceManager,
  port: ServicePort,
  deps: ServiceCliDeps,
  drainMs: number,
  checked: Extract<HostArgsCheck, { ok: true }>,
): Promise<number> {
  const root = deps.repoRoot ?? repoRoot;
  const built = headlessEntry(path.resolve(root), deps.nodePath ?? process.execPath);
  // A Sechroom instance runs in its checkout, as `executor run` does (its .sechroom/executor.json is read there).
  const entry = checked.checkout ? { ...built, workingDirectory: checked.checkout } : built;
  if (!(deps.port ? port.exists : existsSync)(entry.args[0]!)) {
    deps.err.write(`runner-tray service: not installed: ${entry.args[0]} is missing; build it first with npm run build:headless.\n`);
    return 1;
  }
  const environment = serviceEnvironment(deps.env, drainMs, { sechroom: checked.sechroom });
  await manager.install({ name: parsed.name, entry, hostArgs: parsed.hostArgs, ...environment, drainMs });
  for (const line of installNotes(port, manager, parsed.name, parsed.system)) deps.out.write(`${line}\n`);
  return 0;
}
