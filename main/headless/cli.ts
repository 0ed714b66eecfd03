import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { HostEvent } from '../../shared/contract';
import { duration, statusLine } from '../../shared/status';
import { bootstrapCore } from '../core/bootstrap';
import { defaultDataDir } from '../core/paths';
import { OVERRIDES_USAGE, resolveOverrides } from '../core/settings/overrides';
import { canOpenBrowser, openBrowser } from './open-browser';
import { startHeadlessServer } from './server';
import { exitLine, TerminalReporter } from './terminal-reporter';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `npm run headless`: the same core and UI as the desktop app, for a server with no
 * display. Flags and env names are those of `rost runner serve`.
 */
async function main(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${OVERRIDES_USAGE}\n`);
    return 0;
  }
  const resolved = resolveOverrides(process.env, argv);
  if (!resolved.ok) {
    process.stderr.write(`runner-tray headless: ${resolved.error.message}\n${OVERRIDES_USAGE}\n`);
    return 2;
  }
  const pkg = z
    .object({ version: z.string(), productName: z.string() })
    .parse(JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')));
  const dataDir = resolved.dataDir ?? defaultDataDir(process.platform, process.env, os.homedir());

  const core = await bootstrapCore({
    mode: 'headless',
    appName: pkg.productName,
    appVersion: pkg.version,
    dataDir,
    overrides: resolved.overrides,
    overrideSources: resolved.sources,
    allowFileSecretStore: resolved.allowFileSecretStore,
    ...runtimeBinariesFromEnv(process.env),
  });
  const terminal = new TerminalReporter(process.stdout);
  const offEvents = core.host.subscribe((batch: HostEvent[]) => terminal.onEvents(batch));

  if (resolved.importStateFile && !core.runner.identity) {
    const imported = await core.host.invoke('runner:import', { file: resolved.importStateFile });
    process.stdout.write(
      imported.ok ? `Imported runner state from ${resolved.importStateFile}.\n` : `Could not import ${resolved.importStateFile}: ${imported.error.message}\n`,
    );
  }

  if (resolved.once) {
    const code = await terminal.oneHeartbeat(core);
    offEvents();
    await core.shutdown(0);
    return code;
  }

  const server = await startHeadlessServer({
    host: core.host,
    staticDir: path.join(repoRoot, 'dist', 'renderer'),
    ...(resolved.port !== undefined ? { port: resolved.port } : {}),
    log: core.log.child('headless'),
  });
  // The address carries the launch token: it goes to this terminal only, never to a log.
  process.stdout.write(`Runner Tray ${pkg.version} (headless) — open ${server.url}\n`);
  process.stdout.write(`Status: ${statusLine(core.host.status())}\n`);
  if (resolved.open && canOpenBrowser(process.platform, process.env)) openBrowser(server.url, process.platform);
  // A server has nobody at a window: start pairing at once and show the code here.
  if (!core.runner.identity) {
    const started = await core.host.invoke('pairing:start', undefined);
    if (!started.ok) process.stdout.write(`Cannot pair yet: ${started.error.message}\n`);
  }

  // Every way out is the core's quit policy: a signal here, "Stop after the running turns"
  // or "Stop now" in the window. The window stays connected until the core has stopped.
  let exiting = false;
  core.onQuit(() => {
    void core.quit('after-turns').then(async (outcome) => {
      if (outcome.kind === 'canceled' || exiting) return;
      exiting = true;
      offEvents();
      await server.close();
      process.stdout.write(`${exitLine(outcome)}\n`);
      process.exit(0);
    });
  });
  let signals = 0;
  const stop = (signal: string) => {
    signals++;
    if (signals === 2) {
      // Stop now: cancel what runs (their results are still reported), then finish quitting.
      process.stdout.write('Stopping now: canceling running turns.\n');
      void core.quit('now');
      return;
    }
    if (signals > 2) process.exit(130);
    const active = core.work.activeCount;
    const limit = core.quitDrainMs();
    process.stdout.write(
      active > 0
        ? `Stopping (${signal}): waiting for ${active} running turn(s), up to ${duration(limit)}. Press Ctrl-C again to stop now.\n`
        : `Stopping (${signal})…\n`,
    );
    void core.quit('after-turns');
  };
  // conf's atomic writer (when-exit) hooks every signal at import and re-sends it to the
  // process after its own clean-up, which would read as a second Ctrl-C ("stop now") and
  // skip the drain. Our stop path exits cleanly, so its hook is not needed.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => stop(signal));
  }
  return -1;
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
    process.stderr.write(`runner-tray headless: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
