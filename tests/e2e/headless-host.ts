import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const ADDRESS = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)/;

export interface RunningHost {
  /** The first address the host printed: its token opens one browser session, once. */
  url: string;
  origin: string;
  port: number;
  pid: number;
  /**
   * The script token (a WebSocket `Authorization: Bearer`), read from the token file: only a
   * host started with `addressFrom: 'token-file'` has one for scripts ('' otherwise).
   */
  token: string;
  dataDir: string;
  /** The host process itself (to send it signals as a terminal or a supervisor would). */
  child: ChildProcess;
  /** Every line the host printed on its terminal so far. */
  output: string[];
  /** Everything the host wrote to stderr so far. */
  errors(): string;
  /** Resolves with the exit code (or signal) once the host exited. */
  exited: Promise<number | string | null>;
  /** Asks the running host for a new address (SIGUSR2) and waits for it to print it. */
  newUrl(): Promise<string>;
  /** An address that opens: the first one if still unused, else a new one. */
  address(): Promise<string>;
  /** Opens the window in `page` (a new browser session each time), on `hash` if given. */
  open(page: { goto(url: string): Promise<unknown> }, hash?: string): Promise<void>;
  stop(): Promise<void>;
}

export interface StartHostOptions {
  /** Keep the data folder on stop (to start another host on it). */
  dataDir?: string;
  /** Quit drain; tests quit at once unless they say otherwise. */
  drainMs?: number;
  /**
   * 'token-file': the host is given `--token-file TOKEN_FILE` (replaced by
   * `<data dir>/address.env`), and addresses are read from that file when it says so.
   */
  addressFrom?: 'terminal' | 'token-file';
}

/**
 * Starts the real headless host (`main/headless/cli.ts`, as `npm run headless` does,
 * over the already built renderer) with its own data directory, and waits for the
 * address it prints.
 */
export async function startHeadlessHost(extraArgs: string[] = [], env: Record<string, string> = {}, options: StartHostOptions = {}): Promise<RunningHost> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'runner-tray-e2e-'));
  const tokenFile = path.join(dataDir, 'address.env');
  const given = extraArgs.map((a) => (a === 'TOKEN_FILE' ? tokenFile : a));
  const args = given.includes('--port') ? given : ['--port', '0', ...given];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'main/headless/cli.ts'), '--data-dir', dataDir, ...args], {
    cwd: repoRoot,
    // Tests quit at once: running turns are canceled and reported instead of drained.
    env: { ...process.env, RUNNER_TRAY_QUIT_DRAIN_MS: String(options.drainMs ?? 0), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const output: string[] = [];
  const addressWaiters: ((url: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    output.push(line);
    if (options.addressFrom === 'token-file') {
      if (!/address written to /i.test(line)) return;
      const fromFile = /^RUNNER_TRAY_URL=(.*)$/m.exec(readFileSync(tokenFile, 'utf8'))?.[1];
      if (fromFile) addressWaiters.shift()?.(fromFile);
      return;
    }
    const match = ADDRESS.exec(line);
    if (match?.[1]) addressWaiters.shift()?.(match[1]);
  });
  const url = await new Promise<string>((resolve, reject) => {
    addressWaiters.push(resolve);
    void exited.then((code) => reject(new Error(`headless host exited with ${code} before printing its address:\n${stderr}\n${output.join('\n')}`)));
  });
  const parsed = new URL(url);
  let firstUnused = true;
  const newUrl = () => {
    const next = new Promise<string>((resolve, reject) => {
      addressWaiters.push(resolve);
      void exited.then((code) => reject(new Error(`headless host exited with ${code}:\n${stderr}`)));
    });
    child.kill('SIGUSR2');
    return next;
  };
  const address = async () => {
    if (!firstUnused) return newUrl();
    firstUnused = false;
    return url;
  };
  return {
    url,
    origin: parsed.origin,
    port: Number(parsed.port),
    pid: child.pid ?? 0,
    child,
    token: options.addressFrom === 'token-file' ? (/^RUNNER_TRAY_TOKEN=(.*)$/m.exec(readFileSync(tokenFile, 'utf8'))?.[1] ?? '') : '',
    dataDir,
    output,
    errors: () => stderr,
    exited,
    newUrl,
    address,
    async open(page, hash = '') {
      await page.goto(`${await address()}${hash}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
