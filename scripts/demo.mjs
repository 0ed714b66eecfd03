#!/usr/bin/env node
// `npm run demo`: the whole thing in one command. Builds the renderer, starts the control
// plane emulator with its demo seed (a turn execution every 20–40 s) on 127.0.0.1:7457,
// and the app pointed at it: the desktop app when the Electron binary is installed, else
// the headless host (which opens the browser when there is a display). The headless host
// also runs a Sechroom profile beside the Rost one (the emulator's Work Layer, a local git
// origin for its task branches). Ctrl-C stops both.
// The package.json line: "demo": "node scripts/demo.mjs" (flags after `--`).
//
//   --fake-runtime  run turns with scripts/demo-runtime.mjs (no claude/codex sign-in
//                   needed; headless host only); without it turns use the real CLIs, and
//                   with none installed or signed in they fail, honestly
//   --headless      the headless host even when Electron is installed
//   --fresh         forget the demo's pairing and emulator data (.tmp/demo) first
//   --port <n>      the emulator's port (default 7457; 0 picks a free one)
//   --app-port <n>  the headless host's port (default: a free one); keep it to have an
//                   open tab find the host again after a demo restart
//   --data-dir <d>  the app's data folder (default <demo dir>/data)
//   --demo-dir <d>  where the demo keeps its pairing, emulator data and Sechroom checkout
//                   (default .tmp/demo)
//   --start-timeout <s>  how long the emulator and the host each get to be ready (default 180)
//
// Nothing waits a fixed time: the app starts once the emulator printed its address and
// answers /healthz, and the demo is ready once the host printed its own (scripts/demo-wait.mjs).
//
// Ctrl-C lets the running turns finish and their results reach the emulator first
// (scripts/demo-stop.mjs); Ctrl-C again cancels them.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { isStale, RENDERER_TARGET } from './build-freshness.mjs';
import { sechroomPlane } from './demo-sechroom.mjs';
import { DemoStopper } from './demo-stop.mjs';
import { DemoWaitError, waitForHealth, waitForLine } from './demo-wait.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const USAGE =
  'Usage: npm run demo -- [--fake-runtime] [--headless] [--fresh] [--port 7457] [--app-port <n>] [--data-dir <dir>] [--demo-dir <dir>] [--start-timeout <s>]';
let values;
try {
  ({ values } = parseArgs({
    options: {
      'fake-runtime': { type: 'boolean', default: false },
      headless: { type: 'boolean', default: false },
      fresh: { type: 'boolean', default: false },
      port: { type: 'string', default: '7457' },
      'app-port': { type: 'string' },
      'data-dir': { type: 'string' },
      'demo-dir': { type: 'string' },
      'start-timeout': { type: 'string', default: '180' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  }));
} catch (error) {
  // parseArgs explains itself ("Unknown option '--foo'"); a stack trace would only hide it.
  console.error(`demo: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  process.exit(2);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
function portOption(name, value, min) {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < min || n > 65_535) {
    console.error(`demo: --${name} must be an integer from ${min} to 65535\n${USAGE}`);
    process.exit(2);
  }
  return n;
}
const port = portOption('port', values.port, 0);
const appPort = values['app-port'] === undefined ? null : portOption('app-port', values['app-port'], 0);
for (const name of ['data-dir', 'demo-dir']) {
  if (values[name] !== undefined && values[name].trim() === '') {
    console.error(`demo: --${name} needs a directory\n${USAGE}`);
    process.exit(2);
  }
}
const startTimeoutMs = Number(values['start-timeout']) * 1000;
if (!Number.isFinite(startTimeoutMs) || startTimeoutMs <= 0) {
  console.error(`demo: --start-timeout must be a number of seconds above 0\n${USAGE}`);
  process.exit(2);
}

// The demo keeps its own data beside the repo, so its pairing and the emulator's record
// of it live and die together, and the operator's real Runner Tray data is never touched.
const demoDir = values['demo-dir'] ? path.resolve(values['demo-dir']) : path.join(root, '.tmp', 'demo');
if (values.fresh) rmSync(demoDir, { recursive: true, force: true });
mkdirSync(demoDir, { recursive: true });
const dataDir = values['data-dir'] ? path.resolve(values['data-dir']) : path.join(demoDir, 'data');

/**
 * The Electron binary, when `npm install` downloaded it (it does not on every machine).
 * Not `require('electron')`: with the binary missing, that tries to download it on the
 * spot. This reads the same two places its index.js does (as tests/electron does).
 */
function electronBinary() {
  let packageDir;
  try {
    packageDir = path.dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
  const pathFile = path.join(packageDir, 'path.txt');
  const relative = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const executable = override ? path.join(override, relative ?? 'electron') : relative ? path.join(packageDir, 'dist', relative) : null;
  return executable && existsSync(executable) ? executable : null;
}
const electron = values.headless ? null : electronBinary();

function step(title, command, args) {
  console.log(`\n▸ ${title}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`demo: ${title} failed`);
    process.exit(result.status ?? 1);
  }
}

// Built only when its sources changed since the last build: a restart costs no build.
if (isStale(root, RENDERER_TARGET)) {
  step('Building the window', process.execPath, [
    path.join(root, 'node_modules/vite/bin/vite.js'),
    'build',
    '--config',
    'vite.renderer.config.ts',
    '--logLevel',
    'warn',
  ]);
}
if (electron) step('Building the desktop app', process.execPath, [path.join(root, 'scripts/build-electron.mjs')]);

const children = [];
let app = null;
let stopper = null;

/**
 * The demo's planes are on this machine: a proxy the operator's shell names (HTTPS_PROXY,
 * HTTP_PROXY) must not carry loopback traffic, so loopback joins NO_PROXY for the demo.
 */
function loopbackNoProxy() {
  const current = process.env.NO_PROXY ?? process.env.no_proxy ?? '';
  const entries = current.split(/[\s,]+/).filter(Boolean);
  for (const host of ['localhost', '127.0.0.1', '::1']) if (!entries.includes(host)) entries.push(host);
  const value = entries.join(',');
  return { NO_PROXY: value, no_proxy: value };
}

function start(name, command, args, env = {}) {
  // Detached (own process group): a Ctrl-C in the terminal reaches only this script,
  // which then stops each child itself, in order, instead of all of them at once.
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...loopbackNoProxy(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const prefix = `[${name}] `;
  const relay = (stream, out) => {
    let partial = '';
    stream.on('data', (chunk) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) out.write(`${prefix}${line}\n`);
    });
  };
  relay(child.stdout, process.stdout);
  relay(child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    if (stopper) return;
    console.error(`\ndemo: ${name} stopped (${signal ?? `exit ${code}`}); stopping the rest.`);
    void stop(code ?? 1);
  });
  children.push(child);
  return child;
}

function interrupt() {
  stopper ??= new DemoStopper(
    app,
    children.filter((child) => child !== app),
    (line) => console.log(`\n${line}`),
  );
  return stopper.interrupt();
}

async function stop(code = 0) {
  await interrupt();
  process.exit(code);
}
process.on('SIGINT', () => {
  if (!stopper) void stop(0);
  else void interrupt();
});
process.on('SIGTERM', () => void stop(0));
// Should this script die some other way, take the children with it.
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

const tsx = ['--import', 'tsx'];
const emulator = start('emulator', process.execPath, [
  ...tsx,
  'emulator/cli.ts',
  '--seed',
  'demo',
  '--port',
  String(port),
  '--db',
  path.join(demoDir, 'emulator.sqlite'),
  '--quiet',
]);

/** A wait that did not end well stops the demo with its sentence (the children go too). */
async function ready(promise) {
  try {
    return await promise;
  } catch (error) {
    if (stopper) return new Promise(() => undefined); // already stopping: the stop exits
    console.error(`\ndemo: ${error instanceof DemoWaitError ? error.message : error instanceof Error ? error.message : String(error)}`);
    await stop(1);
  }
}

// The emulator prints its address once it listens (with --port 0, the port it was given);
// the app starts once that address answers.
const [, controlPlane] = await ready(
  waitForLine(emulator, /^Control plane emulator on (http:\/\/127\.0\.0\.1:\d+)/, { what: 'The control plane emulator', timeoutMs: startTimeoutMs }),
);
await ready(waitForHealth(`${controlPlane}/healthz`, { what: 'The control plane emulator', timeoutMs: startTimeoutMs }));

if (electron) {
  if (values['fake-runtime']) console.log('\nNote: --fake-runtime applies to the headless host; the desktop app runs turns with the installed CLIs.');
  if (controlPlane !== 'http://127.0.0.1:7457') console.log(`\nNote: set the control plane to ${controlPlane} in the app's Settings before pairing.`);
  if (appPort !== null) console.log('\nNote: --app-port applies to the headless host.');
  app = start('app', electron, ['.'], { RUNNER_TRAY_DATA_DIR: dataDir });
} else {
  const env = values['fake-runtime'] ? { RUNNER_TRAY_CLAUDE_BIN: path.join(root, 'scripts/demo-runtime.mjs') } : {};
  const portArgs = ['--port', String(appPort ?? 0)];
  const sechroom = await ready(sechroomPlane({ root, demoDir, controlPlane, fakeRuntime: values['fake-runtime'], timeoutMs: startTimeoutMs }));
  app = start(
    'app',
    process.execPath,
    [
      ...tsx,
      'main/headless/cli.ts',
      '--control-plane',
      controlPlane,
      '--data-dir',
      dataDir,
      '--allow-file-secret-store',
      '--open',
      ...portArgs,
      ...sechroom.args,
    ],
    { ...env, ...sechroom.env },
  );
  // Ready once the host printed the address its window opens on.
  await ready(waitForLine(app, /— open (http:\/\/\S+)/, { what: 'The headless host', timeoutMs: startTimeoutMs }));
}

/** A path as the person reads it: relative inside the repository, else whole. */
function shown(file) {
  const relative = path.relative(root, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

console.log(`
──────────────────────────────────────────────────────────────────────
 Runner Tray demo${electron ? ' (desktop app)' : ' (headless host: open the address it prints below)'}

 1. The app shows a pairing code (${electron ? 'tray icon → Open, then Pairing' : 'the headless host prints it too'}).
 2. Approve it: open ${controlPlane}/device, use the dev sign-in
    (Ada Admin), and enter the code.
 3. Watch the dashboard: the emulator hands out a turn every 20–40 s.
${values['fake-runtime'] ? '    Turns run with a stand-in runtime (no model is called).' : '    Turns run with your claude/codex; without them they fail, honestly.\n    Try `npm run demo -- --fake-runtime` to see them succeed.'}
${
  electron
    ? ''
    : ` 4. The Sechroom plane runs beside it (profile demo-codex, no sign-in needed):
    its tasks arrive from ${controlPlane}/sechroom, show in Turns and Work,
    and land on task/<id> branches in ${shown(path.join(demoDir, 'sechroom', 'origin.git'))}.
`
}
 Ctrl-C stops everything once the running turns finished (Ctrl-C again:
 cancel them). Data lives in ${shown(dataDir)} (--fresh starts over).
──────────────────────────────────────────────────────────────────────
Demo ready.
`);
