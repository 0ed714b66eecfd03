// First: the V8 settings apply to everything evaluated after them.
import './startup-flags';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { text } from 'node:stream/consumers';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { HostEvent } from '../../shared/contract';
import { profileDir } from '../core/sessions/profile-store';
import { parseProfilesFile } from './profiles-file';
import { bootstrapCore } from '../core/bootstrap';
import { defaultDataDir } from '../core/paths';
import { OVERRIDES_USAGE, resolveOverrides } from '../core/settings/overrides';
import { startHealthServer, type HealthServer } from './health';
import { runOnce } from './once';
import { pairAtStart } from './pair-at-start';
import { resolveSechroomPlane, runSechroomOnce, SECHROOM_USAGE, sechroomCoreOptions, type SechroomPlane } from './sechroom-plane';
import { RunLines } from './run-lines';
import { WORK_GROUPS, WORK_USAGE_LINE } from './work-groups';
import { SeedLines, watchModeLine, type ModePlane } from './seed-lines';
import { redactText } from '../../shared/redact';
import { writeAddressFile, writeLauncherPage } from './address-file';
import { installLastResort } from './last-resort';
import { browserUnavailableReason, openBrowser } from './open-browser';
import { DEFAULT_MAX_CONNECTIONS, startHeadlessServer, type HeadlessServer } from './server';
import { EXIT_CONFIG, isAddressInUse, portInUseLine } from './exit-codes';
import { hostStatusLine, TerminalReporter } from './terminal-reporter';
import { writeStartLines } from './start-lines';
import { runDryRun } from './dry-run';
import { HostSignals, signalExitCode, takeSignal } from './signals';
import { interruptHandler } from './interrupt-lines';
import { stayAlive } from './stay-alive';
import { errorText } from '../../shared/errors';
import type { Fleet } from './fleet/start';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
/** How many windows and scripts may hold a WebSocket at once (RUNNER_TRAY_HEADLESS_MAX_CONNECTIONS). */
const MaxConnectionsSchema = z.coerce.number().int().min(1).max(1000).default(DEFAULT_MAX_CONNECTIONS);
/** Where the window's built files are (RUNNER_TRAY_WINDOW_DIR; default the build's dist/renderer). */
const WindowDirSchema = z.string().trim().min(1).optional();

/** `service …` and the seed's Work Layer commands (work-brief, work-plan, work-task): command lines of their own, not the host's. */
async function subcommand(argv: string[]): Promise<number | null> {
  if ((WORK_GROUPS as readonly string[]).includes(argv[0] ?? '')) {
    const { runWorkCommand } = await import('./work-commands');
    return runWorkCommand(argv, {
      env: process.env,
      out: process.stdout,
      err: process.stderr,
      readFile: (file) => readFile(file, 'utf8'),
      readStdin: () => text(process.stdin),
    });
  }
  if (argv[0] === 'diagnostics') {
    const { runDiagnosticsCommand } = await import('./diagnostics-command');
    return runDiagnosticsCommand(argv.slice(1), { out: process.stdout, err: process.stderr, cwd: process.cwd(), boot: bootQuiet });
  }
  if (argv[0] === 'service') {
    const { runServiceCommand } = await import('./service/service-cli');
    return runServiceCommand(argv.slice(1), { env: process.env, out: process.stdout, err: process.stderr });
  }
  return null;
}

/** This package's name and version (package.json). */
function readPackage(): { version: string; productName: string } {
  return z.object({ version: z.string(), productName: z.string() }).parse(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')));
}

/** The host's core for a one-shot command (`diagnostics`): its flags and env, claiming nothing, writing no log. */
async function bootQuiet(argv: string[]): Promise<Awaited<ReturnType<typeof bootstrapCore>> | number> {
  const start = await readStart(argv);
  if (typeof start === 'number') return start;
  const dataDir = start.resolved.dataDir ?? defaultDataDir(process.platform, process.env, os.homedir());
  const pkg = readPackage();
  return bootstrapCore({ ...coreOptions(start.resolved, start.plane, dataDir, pkg, null), workAutoClaim: false, logFiles: false });
}

/**
 * `npm run headless`: the same core and UI as the desktop app, for a server with no
 * display. Flags and env names are those of `rost runner serve`.
 */
async function main(argv: string[]): Promise<number> {
  const sub = await subcommand(argv);
  if (sub !== null) return sub;
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${OVERRIDES_USAGE}\n${SECHROOM_USAGE}\n${WORK_USAGE_LINE}\n`);
    return 0;
  }
  const start = await readStart(argv);
  if (typeof start === 'number') return start;
  const { connections, windowDir, plane, resolved } = start;
  // A stop asked for while the host starts ends it at once; once it serves, the quit policy decides.
  const signals = new HostSignals(process, (signal) => process.exit(signalExitCode(signal)));
  // Held until the server listens: before that only the core's timers run, and they never hold the process.
  const alive = stayAlive({ proc: process, log: (message) => process.stderr.write(`${message}\n`) });
  const pkg = readPackage();
  const dataDir = resolved.dataDir ?? defaultDataDir(process.platform, process.env, os.homedir());
  const listed = resolved.profilesFile ? readProfilesFile(resolved.profilesFile) : null;
  if (listed && !listed.ok) {
    process.stderr.write(`runner-tray headless: ${listed.message}\n`);
    return 2;
  }
  // The window's tokens, once it listens: a diagnostics bundle drops them by value.
  let windowTokens: readonly string[] = [];
  const core = await bootstrapCore({ ...coreOptions(resolved, plane, dataDir, pkg, listed), diagnosticsSecrets: () => windowTokens });
  // First, before any await: the first heartbeat goes out at once and its line must not be missed.
  const lines = new SeedLines(core, process.stdout, path.join(profileDir(dataDir, core.runner.profile.id), 'runner-state.json'));
  // From here on runtimes may run: an error nothing caught stops them before the process goes.
  installLastResort({
    proc: process,
    log: (message) => {
      core.log.error('the headless host failed', { error: message });
      process.stderr.write(`${redactText(message)}\n`);
    },
    stop: () => core.shutdown(0),
  });
  signals.whileStarting((signal) => void core.shutdown(0).finally(() => process.exit(signalExitCode(signal))));
  // Every profile's lines, each named by its profile while there are several (a fleet, Rost beside Sechroom).
  const mainProfile = core.runner.profile.id;
  const terminal = new TerminalReporter(process.stdout, resolved.userCode ?? null, Date.now, { list: core.profiles.list(), main: mainProfile });
  const offTerminal = core.host.subscribe((batch: HostEvent[]) => terminal.onEvents(batch));
  const runLines = sechroomRunLines(core, plane, mainProfile);
  await writeStartLines(core, resolved.importStateFile, process.stdout);
  await core.capabilities.get();
  const offMode = watchModeLine(core, resolved.sources, process.stdout, modePlane(plane, mainProfile));
  const offEvents = () => {
    offTerminal();
    offMode();
  };

  if (resolved.once || resolved.dryRun) {
    // Held open to the end here (the server does it in the other mode); the caller exits with the code.
    const code = resolved.dryRun ? await dryRun(core, plane) : await once(core, resolved, plane, lines, runLines);
    alive.stopping();
    lines.close();
    offEvents();
    await core.shutdown(resolved.dryRun ? 0 : core.quitDrainMs());
    return code;
  }

  const newAddressHint = addressHint(resolved.tokenFile);
  const listening = await listen(core, resolved, { windowDir, maxConnections: connections.data, newAddressHint, dataDir });
  if (!listening.ok) {
    // One line, and an exit code the service unit does not restart on: another start would find the port as taken.
    process.stderr.write(`${listening.line}\n`);
    alive.stopping();
    lines.close();
    offEvents();
    await core.shutdown(0);
    return EXIT_CONFIG;
  }
  const { health, server, fleet } = listening;
  windowTokens = [server.scriptToken, new URL(server.url).searchParams.get('token') ?? ''];
  alive.release();
  await serve({ core, resolved, signals, alive, lines, runLines, terminal, offEvents, health, server, fleet, pkg, dataDir, windowDir, newAddressHint });
  return -1;
}

/** `--once`: the seed's one beat and one claim (Sechroom: `executor run --once`). */
function once(core: Core, resolved: Resolved, plane: Extract<SechroomPlane, { ok: true }>, lines: SeedLines, runLines: RunLines | null): Promise<number> {
  if (plane.plane === 'sechroom' && runLines) return runSechroomOnce(core, runLines);
  return runOnce(core, lines, process.stdout, resolved.userCode ? { userCode: resolved.userCode } : {});
}

/** `--dry-run` [v1]: nothing is claimed (the core was booted without claiming). */
async function dryRun(core: Core, plane: Extract<SechroomPlane, { ok: true }>): Promise<number> {
  if (plane.plane !== 'sechroom') return runDryRun(core, process.stdout);
  process.stderr.write("runner-tray headless: --dry-run checks a Rost runner's lanes; it is not for --plane sechroom\n");
  return EXIT_CONFIG;
}

/** The seed's `[run]` lines for every Sechroom profile (one: as `executor run`; a fleet: `[<key>] …` as its supervisor relays them). */
function sechroomRunLines(core: Core, plane: Extract<SechroomPlane, { ok: true }>, mainProfile: string): RunLines | null {
  const profiles = plane.profiles.map((p) => ({ id: p.id, instanceKey: p.config.instance.instanceKey }));
  if (plane.plane === 'sechroom' && profiles.length === 1) profiles[0]!.id = mainProfile;
  return profiles.length > 0 ? new RunLines(core.logFeed, profiles, process.stderr) : null;
}

/** What the Mode line is about: Rost's runtimes, or the codex the flags' Sechroom profile drives (named by the operator or detected). */
function modePlane(plane: Extract<SechroomPlane, { ok: true }>, mainProfile: string): ModePlane {
  if (plane.plane !== 'sechroom') return 'rost';
  const config = (plane.profiles.find((p) => p.id === mainProfile) ?? plane.profiles[0])?.config;
  return { sechroom: true, codexNamed: Boolean(config?.instance.codexBin ?? process.env.CODEX_BIN) };
}

function addressHint(tokenFile: string | null | undefined): string {
  if (process.platform === 'win32') return 'Restart the host for a new address.';
  return `Ask the host for a new one: kill -USR2 ${process.pid}${tokenFile ? ` (it is written to ${tokenFile})` : ' (it prints it in its terminal)'}.`;
}

interface Serving {
  core: Core;
  resolved: Resolved;
  signals: HostSignals;
  alive: ReturnType<typeof stayAlive>;
  lines: SeedLines;
  runLines: RunLines | null;
  terminal: TerminalReporter;
  offEvents: () => void;
  health: HealthServer | null;
  server: HeadlessServer;
  fleet: Fleet | null;
  pkg: { version: string; productName: string };
  dataDir: string;
  windowDir: string;
  newAddressHint: string;
}

/** The listening host: its addresses out, its stops handled, the browser opened and pairing started when asked. */
async function serve(serving: Serving): Promise<void> {
  const { core, resolved, signals, server, pkg, dataDir, windowDir, newAddressHint } = serving;
  // The address carries a one-time token: it goes to this terminal (or the token file) only, never to a log.
  const tokenFile = resolved.tokenFile ? path.resolve(resolved.tokenFile) : null;
  const publish = async (url: string, first: boolean): Promise<void> => {
    if (tokenFile) {
      await writeAddressFile(tokenFile, { url, token: server.scriptToken });
      process.stdout.write(
        first ? `Runner Tray ${pkg.version} (headless) on ${server.origin} — address written to ${tokenFile}\n` : `New address written to ${tokenFile}\n`,
      );
    } else {
      process.stdout.write(first ? `Runner Tray ${pkg.version} (headless) — open ${url}\n` : `New address: ${url}\n`);
    }
  };
  // Before the first address is out: a supervisor may stop the host the moment it prints it.
  signals.handle(quitHandlers(serving));

  if (process.platform !== 'win32') {
    // when-exit hooks SIGUSR2 too, and would end the process on it (see signals.ts).
    // Set up before the first address is out: a signal caught earlier goes to the old hook.
    takeSignal(process, 'SIGUSR2', () => {
      void publish(server.newAddress(), false).catch((error: unknown) =>
        process.stderr.write(`runner-tray headless: could not write a new address: ${errorText(error)}\n`),
      );
    });
  }
  await publish(server.url, true);
  if (!existsSync(path.join(windowDir, 'index.html'))) {
    // Scripts still connect; a browser would get "Not found" with no hint why.
    process.stderr.write(
      `runner-tray headless: the window is not built (${path.join(windowDir, 'index.html')} is missing): run \`npm run build\` (or point RUNNER_TRAY_WINDOW_DIR at the built renderer).\n`,
    );
  }
  process.stdout.write(`Each address opens one window, once. ${newAddressHint}\n`);
  process.stdout.write(`${hostStatusLine(core.host.status(), core.profiles.list().length)}\n`);
  if (resolved.open) {
    const unavailable = browserUnavailableReason(process.platform, process.env);
    if (unavailable) {
      process.stdout.write(`--open: ${unavailable}; open the address ${tokenFile ? `in ${tokenFile}` : 'above'} in a browser yourself.\n`);
    } else {
      // The browser gets an address of its own, through a page in the data folder, so its
      // token is never in the launcher's argv; the printed one stays good for another window.
      const launcher = path.join(dataDir, 'open-window.html');
      await writeLauncherPage(launcher, server.newAddress());
      openBrowser(launcher, process.platform);
    }
  }
  // Never waited for: the registry may be slow or out of reach. Its code (semver among it)
  // is loaded after the host serves, not before its first beat.
  void import('./update-check').then(({ startUpdateCheck }) => {
    const updates = startUpdateCheck({ core, pkg, dataDir, env: process.env, out: process.stdout });
    core.onQuit(() => updates.stop());
  });
  // A server has nobody at a window: every unpaired profile starts pairing at once and shows its code here.
  await pairAtStart(core, resolved.userCode ?? null, process.stdout);
}

/**
 * Every way out is the core's quit policy: a signal here, "Stop after the running turns"
 * or "Stop now" in the window. The window stays connected until the core has stopped.
 * Returns what a signal does: the first drains, the second stops now, a third exits.
 */
function quitHandlers(serving: Serving): (signal: string) => void {
  const { core, alive, offEvents, lines, runLines, terminal, health, server, fleet } = serving;
  let exiting = false;
  core.onQuit(() => {
    terminal.quitBegan();
    // A fleet's instances all stop with the host: the seed's `[fleet] …=stopping` line.
    runLines?.shutdown();
    void core.quit('after-turns').then(async (outcome) => {
      if (outcome.kind === 'canceled') process.stdout.write('Quit called off: taking work again.\n');
      if (outcome.kind === 'canceled' || exiting) return;
      exiting = true;
      alive.stopping();
      offEvents();
      lines.close();
      await health?.close();
      await fleet?.close();
      await server.close();
      process.stdout.write(`${terminal.exitLine(outcome)}\n`);
      process.exit(0);
    });
  });
  // Ctrl-C drains the whole host; another within 3 s stops now; after "Keep running" it drains again.
  return interruptHandler({ interrupt: () => core.interrupt(), out: process.stdout, exit: (code) => process.exit(code) });
}

/** The flags and variables read before anything starts; a number is the exit code of a refusal. */
async function readStart(argv: string[]) {
  const connections = MaxConnectionsSchema.safeParse(process.env.RUNNER_TRAY_HEADLESS_MAX_CONNECTIONS || undefined);
  if (!connections.success) {
    process.stderr.write('runner-tray headless: RUNNER_TRAY_HEADLESS_MAX_CONNECTIONS must be an integer from 1 to 1000.\n');
    return 2;
  }
  const windowDir = path.resolve(WindowDirSchema.parse(process.env.RUNNER_TRAY_WINDOW_DIR || undefined) ?? path.join(repoRoot, 'dist', 'renderer'));
  const plane = await resolveSechroomPlane(process.env, argv);
  if (!plane.ok) {
    process.stderr.write(`runner-tray headless: ${plane.message}\n${SECHROOM_USAGE}\n`);
    return 2;
  }
  const resolved = resolveOverrides(process.env, plane.rest);
  if (!resolved.ok) {
    process.stderr.write(`runner-tray headless: ${resolved.error.message}\n${OVERRIDES_USAGE}\n`);
    return 2;
  }
  return { connections, windowDir, plane, resolved };
}

/** The core the host runs: the flags', the profiles file's and the plane's choices. */
function coreOptions(
  resolved: Resolved,
  plane: Extract<Awaited<ReturnType<typeof resolveSechroomPlane>>, { ok: true }>,
  dataDir: string,
  pkg: { version: string; productName: string },
  listed: ReturnType<typeof readProfilesFile> | null,
): Parameters<typeof bootstrapCore>[0] {
  return {
    mode: 'headless',
    appName: pkg.productName,
    appVersion: pkg.version,
    dataDir,
    overrides: resolved.overrides,
    overrideSources: resolved.sources,
    allowFileSecretStore: resolved.allowFileSecretStore,
    ...runtimeBinariesFromEnv(process.env),
    ...(resolved.once || resolved.dryRun ? { workAutoClaim: false } : {}),
    ...(resolved.profile ? { profile: resolved.profile } : {}),
    ...(listed?.ok ? { profiles: listed.profiles } : {}),
    ...sechroomCoreOptions(plane, resolved.profile),
  };
}

/**
 * `RUNNER_TRAY_CLAUDE_BIN` / `RUNNER_TRAY_CODEX_BIN` point the runner at other runtime
 * binaries (a fake one in browser tests and `npm run demo -- --fake-runtime`). Unset,
 * the runner looks `claude` and `codex` up on PATH as before.
 */
function runtimeBinariesFromEnv(env: NodeJS.ProcessEnv): { runtimeBinaries?: { claude: string; codex: string } } {
  const claude = env.RUNNER_TRAY_CLAUDE_BIN?.trim();
  const codex = env.RUNNER_TRAY_CODEX_BIN?.trim();
  if (!claude && !codex) return {};
  return { runtimeBinaries: { claude: claude || 'claude', codex: codex || 'codex' } };
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`runner-tray headless: ${errorText(error)}\n`);
    process.exit(1);
  },
);

type Core = Awaited<ReturnType<typeof bootstrapCore>>;
type Resolved = Extract<ReturnType<typeof resolveOverrides>, { ok: true }>;

/** The health probe (when asked for) and the window's server; a port already held is one line to print. */
async function listen(
  core: Core,
  resolved: Resolved,
  window: { windowDir: string; maxConnections: number; newAddressHint: string; dataDir: string },
): Promise<{ ok: true; health: HealthServer | null; server: HeadlessServer; fleet: Fleet | null } | { ok: false; line: string }> {
  let health: HealthServer | null = null;
  if (resolved.healthPort !== undefined) {
    try {
      health = await startHealthServer({ port: resolved.healthPort, host: resolved.healthHost ?? '0.0.0.0', status: () => core.host.status() });
    } catch (error) {
      if (isAddressInUse(error)) return { ok: false, line: portInUseLine('the health', resolved.healthPort, '--health-port') };
      throw error;
    }
    process.stdout.write(`Health probe: http://${resolved.healthHost ?? '0.0.0.0'}:${health.port}/healthz\n`);
  }
  try {
    const server = await startHeadlessServer({
      host: core.host,
      staticDir: window.windowDir,
      ...(resolved.port !== undefined ? { port: resolved.port } : {}),
      log: core.log.child('headless'),
      maxConnections: window.maxConnections,
      newAddressHint: window.newAddressHint,
    });
    const fleet = await startFleetIfAsked(core, resolved, window.dataDir);
    if (typeof fleet !== 'string') return { ok: true, health, server, fleet };
    await Promise.all([health?.close(), server.close()]);
    return { ok: false, line: fleet };
  } catch (error) {
    await health?.close();
    if (isAddressInUse(error) && resolved.port !== undefined) return { ok: false, line: portInUseLine('the window', resolved.port, '--port') };
    throw error;
  }
}

/** `/metrics` and the webhook, loaded only when asked for; a port already held is the line to print. */
async function startFleetIfAsked(core: Core, resolved: Resolved, dataDir: string): Promise<Fleet | null | string> {
  const options = resolved.fleet;
  if (!options.metrics && !options.webhookUrl) return null;
  const { startFleet } = await import('./fleet/start');
  try {
    return await startFleet(core, options, { out: process.stdout, err: process.stderr, dataDir, proc: process });
  } catch (error) {
    if (isAddressInUse(error) && options.metrics) return portInUseLine('the metrics', options.metrics.port, '--metrics-port');
    throw error;
  }
}

/** The profiles file, parsed; a file that cannot be read says so the same way. */
function readProfilesFile(file: string): ReturnType<typeof parseProfilesFile> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, message: `${file}: could not be read (${errorText(error)}).` };
  }
  return parseProfilesFile(text, file);
}
