// The headless host as a unit file starts it (`node main/headless/cli.ts <args>`, the rest
// from the environment) against a real emulator, with the seed CLI's state file: what the
// drop-in tests for `rost runner serve` drive. Call `seedCliHarness()` at a test file's top
// level: it cleans up after each test.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../emulator';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const FAKE = fileURLToPath(new URL('../fixtures/prompt-driven-runtime.mjs', import.meta.url));

export interface CliHost {
  child: ChildProcess;
  lines: string[];
  /** Resolves with the first line (seen or to come) that matches. */
  line(match: RegExp): Promise<RegExpExecArray>;
  exited: Promise<number | null>;
}

export interface SeedCliHarness {
  /** The emulator of the running test (after `setup`). */
  readonly emu: RunningEmulator;
  /** The test's own folder: the host's data is in `data/`. */
  readonly dir: string;
  setup(config?: Record<string, unknown>): Promise<void>;
  /** The host with these arguments; claude is the prompt-driven fake, codex is absent. */
  host(args: string[], env?: Record<string, string>): CliHost;
  /** A state file as `rost runner serve` leaves it: the runner and its secret, owner-only. */
  seedStateFile(): { file: string; runnerId: string; secret: string };
}

function watchLines(child: ChildProcess): Omit<CliHost, 'child' | 'exited'> {
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  const feed = (line: string) => {
    lines.push(line);
    for (const w of [...waiters]) w();
  };
  createInterface({ input: child.stdout! }).on('line', feed);
  createInterface({ input: child.stderr! }).on('line', feed);
  const line = (match: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        for (const l of lines) {
          const m = match.exec(l);
          if (!m) continue;
          waiters.delete(check);
          clearTimeout(timer);
          return resolve(m);
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no line matched ${match} in:\n${lines.join('\n')}`));
      }, 20_000);
      waiters.add(check);
      check();
    });
  return { lines, line };
}

export function seedCliHarness(folderPrefix: string): SeedCliHarness {
  let emu: RunningEmulator | null = null;
  let dir = '';
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
    await emu?.close();
    emu = null;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = '';
  });
  const running = () => {
    if (!emu) throw new Error('setup() first');
    return emu;
  };
  return {
    get emu() {
      return running();
    },
    get dir() {
      return dir;
    },
    async setup(config = {}) {
      emu = await startEmulator({ config: { pairingIntervalSec: 1, nextHeartbeatMs: 1000, longPollMaxMs: 1000, ...config } });
      dir = mkdtempSync(path.join(os.tmpdir(), folderPrefix));
    },
    host(args, env = {}) {
      const child = spawn(process.execPath, ['--import', 'tsx', 'main/headless/cli.ts', ...args], {
        cwd: repoRoot,
        env: {
          ...process.env,
          RUNNER_CONTROL_PLANE_URL: running().url,
          RUNNER_TRAY_DATA_DIR: path.join(dir, 'data'),
          RUNNER_TRAY_ALLOW_FILE_SECRET_STORE: '1',
          RUNNER_TRAY_CLAUDE_BIN: FAKE,
          RUNNER_TRAY_CODEX_BIN: path.join(dir, 'no-codex-here'),
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { child, exited, ...watchLines(child) };
    },
    seedStateFile() {
      const runner = running().admin.createRunner({ name: 'rack-7' });
      const file = path.join(dir, 'rost-runner.json');
      const record = { runner_id: runner.runner_id, runner_secret: runner.runner_secret, tenant_id: runner.tenant_id, name: 'rack-7' };
      writeFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
      return { file, runnerId: runner.runner_id, secret: runner.runner_secret };
    },
  };
}
